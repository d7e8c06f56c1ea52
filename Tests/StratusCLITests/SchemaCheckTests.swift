import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// `stratus schema check` in CI: an app ran against Development (types made just in time, a query on a field), the
/// server stopped, and the check fails until the schema is deployed, then passes.
@Suite struct SchemaCheckTests {
    @Test func schemaCheckFailsOnAnUndeployedTypeAndPassesAfterDeploy() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Check")
        let (api, web) = try await Executables.offPool { () -> (String, String) in
            let store = try ServerStore(dataDirectory: data)
            try store.createContainer(container)
            let u = "_" + String(repeating: "c3", count: 16)
            return (try store.credentials.createAPIToken(container: container, environment: .development, name: "ci").secret,
                    try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: u))
        }
        let server = try await ServeProcess(arguments: ["--data", data.path])
        let q = "ckAPIToken=\(api)&ckWebAuthToken=\(web.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        func post(_ action: String, _ body: String) async throws -> Int {
            var req = URLRequest(url: URL(string: "\(server.url)database/1/\(container.rawValue)/development/public/\(action)?\(q)")!)
            req.httpMethod = "POST"
            req.httpBody = Data(body.utf8)
            let (_, r) = try await URLSession.shared.data(for: req)
            return (r as! HTTPURLResponse).statusCode
        }
        #expect(try await post("records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"hi"}}}}]}"#) == 200)
        #expect(try await post("records/query", #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"title","comparator":"EQUALS","fieldValue":{"value":"hi"}}]}}"#) == 200)
        server.stop()

        let failing = try await Executables.run("stratus", ["schema", "check", "--data", data.path, "--container", container.rawValue])
        #expect(failing.status == 1, "\(failing.stdout)\(failing.stderr)")
        #expect(failing.stdout.contains("record type Note is not in Production"), "\(failing.stdout)")
        #expect(failing.stdout.contains("queries of Note use title"), "\(failing.stdout)")
        let deployed = try await Executables.run("stratus", ["schema", "deploy", "--data", data.path, "--container", container.rawValue])
        #expect(deployed.status == 0, "\(deployed.stderr)")
        let passing = try await Executables.run("stratus", ["schema", "check", "--data", data.path, "--container", container.rawValue])
        #expect(passing.status == 0 && passing.stdout.contains("ok"), "\(passing.stdout)\(passing.stderr)")
    }
}
