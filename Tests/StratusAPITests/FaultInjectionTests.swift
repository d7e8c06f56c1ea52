import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore

/// Faults switched on over `/-/admin/faults` drive a client retry loop written as CloudKit's documentation advises
/// (retry after `retryAfter` for ZONE_BUSY, THROTTLED, SERVICE_UNAVAILABLE and TRY_AGAIN_LATER; back off on
/// INTERNAL_ERROR and a dropped connection; give up on what is not transient): every record it meant to write is
/// there once. A seeded probabilistic fault fails the same requests on a rerun; a bad spec is refused.
@Suite(.serialized) struct FaultInjectionTests {
    static let adminToken = "admin-token-for-the-fault-tests"

    /// One records/modify creating `name`, retried as CloudKit advises; returns the attempts and the final answer.
    static func createWithRetries(_ f: APIFixture, _ name: String) async throws -> (attempts: Int, status: Int, code: String?) {
        let body = #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note","fields":{"n":{"value":1}}}}]}"#
        var backoff = 0.05
        for attempt in 1...8 {
            let reply: APIFixture.Reply
            // A session (so a connection) of its own per attempt: on a kept-alive connection that closes unanswered,
            // libcurl under Foundation's URLSession silently sends the request again without its body.
            do { reply = try await f.call("records/modify", body, user: f.aliceToken, session: URLSession(configuration: .ephemeral)) } catch {
                // The connection dropped with no answer: nothing was acknowledged, so the same create is safe to send again.
                try await Task.sleep(for: .seconds(backoff)); backoff *= 2
                continue
            }
            switch reply.json.code {
            case "ZONE_BUSY", "THROTTLED", "SERVICE_UNAVAILABLE", "TRY_AGAIN_LATER":
                let wait = Int(reply.json["retryAfter"]?.int64 ?? 1)
                #expect(reply.status == 503 && reply.headers["retry-after"] == String(wait))
                try await Task.sleep(for: .seconds(Double(wait)))
            case "INTERNAL_ERROR":
                #expect(reply.status == 500 && reply.json["uuid"]?.string != nil)
                try await Task.sleep(for: .seconds(backoff)); backoff *= 2
            default:
                return (attempt, reply.status, reply.json.code ?? reply.json.records.first?["serverErrorCode"]?.string)
            }
        }
        return (8, 0, "gave up")
    }

    func admin(_ f: APIFixture, _ method: String, _ path: String, _ body: String? = nil, token: String = Self.adminToken) async throws -> (Int, String) {
        var req = URLRequest(url: URL(string: "\(f.app.url)-/admin/\(path)")!)
        req.httpMethod = method
        req.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body { req.httpBody = Data(body.utf8) }
        let (d, r) = try await f.session.data(for: req)
        return ((r as! HTTPURLResponse).statusCode, String(decoding: d, as: UTF8.self))
    }

    @Test func aRetryingClientGetsThroughEveryTransientFault() async throws {
        let f = try await APIFixture { $0.adminToken = FaultInjectionTests.adminToken }
        let c = f.container.rawValue
        #expect(try await admin(f, "GET", "faults", token: "wrong").0 == 401)
        var written: [String] = []
        for (i, (error, count, retryAfter)) in [("ZONE_BUSY", 2, 1), ("THROTTLED", 1, 1), ("SERVICE_UNAVAILABLE", 1, 1), ("INTERNAL_ERROR", 2, 0), ("NETWORK_DROP", 2, 0)].enumerated() {
            let (status, text) = try await admin(f, "POST", "faults", #"{"container":"\#(c)","environment":"development","operation":"records/modify","error":"\#(error)","count":\#(count),"retryAfter":\#(retryAfter)}"#)
            #expect(status == 201, "\(text)")
            let result = try await Self.createWithRetries(f, "r\(i)")
            #expect(result.status == 200 && result.code == nil && result.attempts == count + 1, "\(error): \(result)")
            written.append("r\(i)")
        }
        // Not transient: the client stops and says so.
        _ = try await admin(f, "POST", "faults", #"{"container":"\#(c)","environment":"development","operation":"records/modify","error":"QUOTA_EXCEEDED","count":1}"#)
        let quota = try await Self.createWithRetries(f, "never")
        #expect(quota.status == 413 && quota.code == "QUOTA_EXCEEDED" && quota.attempts == 1)
        // Latency only.
        _ = try await admin(f, "POST", "faults", #"{"container":"\#(c)","environment":"development","operation":"records/query","error":"NONE","count":1,"latencyMs":400}"#)
        let started = ContinuousClock.now
        #expect(try await f.call("records/query", #"{"query":{"recordType":"Note"}}"#, user: f.aliceToken).status == 200)
        #expect(ContinuousClock.now - started >= .milliseconds(400))
        // Every record once, nothing else.
        let all = try await f.call("records/query", #"{"query":{"recordType":"Note"}}"#, user: f.aliceToken)
        #expect(all.json.names.sorted() == written.sorted())
        let (_, listed) = try await admin(f, "GET", "faults?container=\(c)")
        #expect(listed.contains(#""error":"ZONE_BUSY""#) && listed.contains(#""injected":2"#))

        // A seeded probability fails the same requests on a rerun.
        func run() async throws -> [Bool] {
            _ = try await admin(f, "DELETE", "faults?container=\(c)")
            _ = try await admin(f, "POST", "faults", #"{"container":"\#(c)","environment":"development","operation":"zones/list","error":"ZONE_BUSY","probability":0.5,"seed":7}"#)
            var failed: [Bool] = []
            for _ in 0..<16 { failed.append(try await f.call("zones/list", db: "private", user: f.aliceToken).status == 503) }
            return failed
        }
        let first = try await run(), second = try await run()
        #expect(first == second && first.contains(true) && first.contains(false), "\(first)")
        // Bad specs are refused with a reason; clearing works.
        let (bad, reason) = try await admin(f, "POST", "faults", #"{"container":"\#(c)","environment":"development","operation":"records/modify","error":"BOGUS","count":1}"#)
        #expect(bad == 400 && reason.contains("unknown error"))
        let (both, _) = try await admin(f, "POST", "faults", #"{"container":"\#(c)","environment":"development","operation":"records/modify","error":"ZONE_BUSY","count":1,"probability":0.5}"#)
        #expect(both == 400)
        let (op, _) = try await admin(f, "POST", "faults", #"{"container":"\#(c)","environment":"development","operation":"records/nothing","error":"ZONE_BUSY","count":1}"#)
        #expect(op == 400)
        #expect(try await admin(f, "DELETE", "faults?container=\(c)").0 == 200)
        #expect(try await f.call("zones/list", db: "private", user: f.aliceToken).status == 200)
    }

    /// `expiresIn` is bounded before any arithmetic: the largest and smallest numbers JSON can carry are refused
    /// (400, saying why), and the server goes on answering.
    @Test func aFaultsLifetimeIsBoundedBeforeItIsComputed() async throws {
        let f = try await APIFixture { $0.adminToken = FaultInjectionTests.adminToken }
        let c = f.container.rawValue
        for expires in ["9223372036854775807", "-9223372036854775808", "-9.2e18", "9.3e15", "0", "86401"] {
            let (status, text) = try await admin(f, "POST", "faults", #"{"container":"\#(c)","environment":"development","operation":"zones/list","error":"ZONE_BUSY","count":1,"expiresIn":\#(expires)}"#)
            #expect(status == 400, "\(expires): \(status) \(text)")
        }
        let (status, _) = try await admin(f, "POST", "faults", #"{"container":"\#(c)","environment":"development","operation":"zones/list","error":"ZONE_BUSY","count":1,"expiresIn":86400}"#)
        #expect(status == 201)
        #expect(try await f.call("zones/list").status == 503)
    }
}
