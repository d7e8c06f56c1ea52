import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The Logs page lists the CloudKit API requests of its environment, newest first, with the user and, for an error,
/// its CloudKit code and the uuid the client got, which finds its line; other environments' requests stay out.
@Suite struct ConsoleLogsTests {
    @Test func theUuidOfAClientErrorFindsItsRequest() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Logs")
        let user = "_" + String(repeating: "e", count: 32)
        let (token, web) = try await offPool { () -> (String, String) in
            try f.app.store.createContainer(container)
            return (try f.app.store.credentials.createAPIToken(container: container, environment: .development, name: "t").secret,
                    try f.app.store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: user))
        }
        func call(_ path: String, _ body: String, env: String = "development") async throws -> (Int, String) {
            let q = "ckAPIToken=\(token)&ckWebAuthToken=\(web.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            var req = URLRequest(url: URL(string: "\(f.app.url)database/1/\(container.rawValue)/\(env)/private/\(path)?\(q)")!)
            req.httpMethod = "POST"
            req.httpBody = Data(body.utf8)
            let (d, r) = try await f.session.data(for: req)
            return ((r as! HTTPURLResponse).statusCode, String(decoding: d, as: UTF8.self))
        }
        #expect(try await call("zones/list", "{}").0 == 200)
        let (status, body) = try await call("records/query", "{not json")
        #expect(status == 400)
        let uuid = try #require(body.firstMatch(of: /"uuid":"([0-9a-f-]+)"/).map { String($0.1) })
        _ = try await call("zones/list", "{}", env: "production")   // another environment's request (refused: no token there)
        let base = "/console/\(container.rawValue)/development/logs"
        let all = try await s.get(base)
        #expect(all.status == 200 && all.html.contains("<code>records/query</code>") && all.html.contains("<code>zones/list</code>") && all.html.contains(user))
        let found = try await s.get("\(base)?uuid=\(uuid)")
        #expect(found.html.contains("BAD_REQUEST") && found.html.contains(uuid) && !found.html.contains("<code>zones/list</code>"), "\(found.html.suffix(1500))")
        let json = try await s.get("\(base)?status=200", accept: "application/json")
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.html.utf8)) as? [String: Any])
        let requests = try #require(decoded["requests"] as? [[String: Any]])
        #expect(requests.count == 1 && requests[0]["operation"] as? String == "zones/list" && requests[0]["user"] as? String == user)
        let production = try await s.get("/console/\(container.rawValue)/production/logs", accept: "application/json")
        #expect(!production.html.contains("records/query"))
        #expect(try await s.get("\(base)?status=abc").status == 400)
    }
}
