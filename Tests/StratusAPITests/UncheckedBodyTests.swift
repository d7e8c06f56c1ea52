import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusServer
import StratusModel
import StratusStore
import StratusTestSupport

/// Strangers who announce large bodies are refused on the head alone, against the real server: an anonymous
/// console import, a forged asset-upload ticket, a CloudKit request without a live API token, and a large one
/// without a signed-in user. None of their bodies is read or held.
@Suite struct UncheckedBodyTests {
    /// Sends a request's head alone: its body never comes, so a server that waited for it would answer 408 after
    /// the request timeout instead of the refusal.
    static func head(_ f: APIFixture, _ head: String) async throws -> RawClient.Response? {
        let c = try RawClient(port: f.app.port, receiveTimeout: 60)
        c.send(head)
        return await c.response()
    }

    @Test func eightStrangersAnnouncingLargeBodiesHoldNothing() async throws {
        let f = try await APIFixture()
        let c = f.container.rawValue
        // Eight anonymous console imports of 64 MB at once: each is sent to sign in, on its head alone.
        try await withThrowingTaskGroup(of: RawClient.Response?.self) { group in
            for _ in 0..<8 {
                group.addTask { try await Self.head(f, "POST /console/\(c)/development/import HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 67108864\r\n\r\n") }
            }
            for try await r in group {
                #expect(r?.status == 303 && r?.headers["location"] == "/console/login")
            }
        }
        #expect(f.app.bufferedBodyBytes == 0)
        // A forged upload ticket, announcing 50 MB.
        let forged = try await Self.head(f, "POST /-/assets/upload/\(c)/development/not-a-ticket HTTP/1.1\r\nHost: x\r\nContent-Length: 52428800\r\n\r\n")
        #expect(forged?.status == 401 && String(decoding: forged?.body ?? Data(), as: UTF8.self).contains("AUTHENTICATION_FAILED"))
        // CloudKit requests: no API token, a revoked one, another environment's; then a large body with an API token only.
        let path = "/database/1/\(c)/development/public/records/modify"
        for q in ["", "?ckAPIToken=made-up", "?ckAPIToken=\(f.prodToken)"] {
            let r = try await Self.head(f, "POST \(path)\(q) HTTP/1.1\r\nHost: x\r\nContent-Length: 16000000\r\n\r\n")
            #expect(r?.status == 401, "\(q)")
        }
        let anonymous = try await Self.head(f, "POST \(path)?ckAPIToken=\(f.devToken) HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n")
        #expect(anonymous?.status == 421 && String(decoding: anonymous?.body ?? Data(), as: UTF8.self).contains("AUTHENTICATION_REQUIRED"))
        #expect(f.app.bufferedBodyBytes == 0)
        // A signed-in user's large body is read and answered as before.
        let big = String(repeating: "x", count: 1_100_000)
        let r = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"big","recordType":"Note","fields":{"t":{"value":"\#(big)"}}}}]}"#, user: f.aliceToken)
        #expect(r.status == 200, "\(r.text.prefix(300))")
    }

    @Test func anUploadTicketWorksOnAnotherServerOfTheSameStoreAndOnce() async throws {
        let f = try await APIFixture()
        let asked = try await f.call("assets/upload", #"{"tokens":[{"recordType":"Photo","fieldName":"image"}]}"#, user: f.aliceToken)
        let url = try #require(asked.json["tokens"]?.array?.first?["url"]?.string)
        // The ticket is signed with the environment's secret: it holds across a restart of the server.
        await f.app.stop()
        var restarted = f.app.config
        restarted.port = 0
        let config = restarted
        let again = try await StratusApplication.open(config: config)
        try await again.start()
        defer { Task { await again.stop() } }
        let path = String(url[url.range(of: "/-/assets/")!.lowerBound...])
        var req = URLRequest(url: URL(string: "\(again.url.dropLast())\(path)")!)
        req.httpMethod = "POST"
        req.httpBody = Data("hello".utf8)
        let (body, response) = try await f.session.data(for: req)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")
        let (_, second) = try await f.session.data(for: req)
        #expect((second as? HTTPURLResponse)?.statusCode == 401, "a ticket is used once")
    }
}
