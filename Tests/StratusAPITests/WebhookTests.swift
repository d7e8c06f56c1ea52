import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore

/// Webhooks hear public changes of their record types, signed, retried until the receiver takes them, and never
/// hear private data.
@Suite struct WebhookTests {
    /// A receiver on a real socket that answers 500 to its first `failures` deliveries.
    final class Receiver: Sendable {
        struct Delivery: Sendable { var body: Data; var signature: String?; var id: String? }
        final class Log: Sendable {
            let received = Mutex<[Delivery]>([])
            let attempts = Mutex(0)
        }
        let log = Log()
        let server: HTTPServer

        init(failures: Int) async throws {
            var router = Router()
            let log = self.log
            router.add(.post, "/hook", bodyLimit: 1 << 20) { req in
                let n = log.attempts.withLock { $0 += 1; return $0 }
                if n <= failures { return HTTPResponse(status: .internalServerError) }
                log.received.withLock { $0.append(Delivery(body: req.body, signature: req.headers["x-stratus-signature"], id: req.headers["x-stratus-delivery"])) }
                return HTTPResponse(status: .noContent)
            }
            server = HTTPServer(config: HTTPServerConfig(port: 0), router: router)
            try await server.start()
        }
    }

    @Test func deliveriesAreSignedRetriedAndPublicOnly() async throws {
        let f = try await APIFixture()
        let receiver = try await Receiver(failures: 2)
        let env = try f.app.store.environment(f.container, .development)
        let (hook, secret) = try env.webhooks.addWebhook(url: "http://127.0.0.1:\(receiver.server.port)/hook", recordTypes: ["Order"])
        // Public Orders are heard; a public Memo and a private Order are not.
        _ = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"o1","recordType":"Order","fields":{"total":{"value":42}}}},{"operationType":"create","record":{"recordName":"m1","recordType":"Memo"}}]}"#, user: f.aliceToken)
        _ = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"secret-order","recordType":"Order","fields":{"note":{"value":"private"}}}}]}"#, db: "private", user: f.aliceToken)
        // Two 500s, then 200: delivered on the third attempt (after 1 s and 2 s of backoff).
        for _ in 0..<100 where receiver.log.received.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(100)) }
        let got = receiver.log.received.withLock { $0 }
        #expect(got.count == 1 && receiver.log.attempts.withLock { $0 } == 3)
        let d = try #require(got.first)
        #expect(d.signature == "sha256=" + Secrets.hex(HMAC<SHA256>.authenticationCode(for: d.body, using: SymmetricKey(data: Data(secret.utf8)))))
        let body = try #require(try JSONSerialization.jsonObject(with: d.body) as? [String: Any])
        #expect(body["recordName"] as? String == "o1" && body["reason"] as? String == "created" && body["notificationID"] as? String == d.id)
        #expect((body["fields"] as? [String: Any])?["total"] as? Int == 42)
        #expect(!String(decoding: d.body, as: UTF8.self).contains("secret-order"))
        // The deliverer records the outcome after the receiver has answered.
        for _ in 0..<100 where try env.webhooks.webhookDeliveries(webhookID: hook.id).map(\.state) != ["delivered"] { try await Task.sleep(for: .milliseconds(100)) }
        #expect(try env.webhooks.all().first?.lastStatus == "HTTP 204")
        #expect(try env.webhooks.webhookDeliveries(webhookID: hook.id).map(\.state) == ["delivered"])
        // /-/metrics counts the queued delivery and its three attempts.
        let (data, _) = try await URLSession.shared.data(from: URL(string: "\(f.app.url)-/metrics")!)
        let text = String(decoding: data, as: UTF8.self)
        let labels = #"container="\#(f.container.rawValue)",environment="development""#
        #expect(text.contains("stratus_webhook_deliveries_queued_total{\(labels)} 1"), "\(text.suffix(1500))")
        #expect(text.contains(#"stratus_webhook_delivery_attempts_total{\#(labels),outcome="failed"} 2"#))
        #expect(text.contains(#"stratus_webhook_delivery_attempts_total{\#(labels),outcome="delivered"} 1"#))
        await receiver.server.stop()
    }

    /// A receiver that accepts and never answers costs one timeout, not a stuck deliverer: the attempt is recorded
    /// as unanswered and retried, and another webhook's deliveries go on meanwhile. Then a receiver answering in
    /// chunks with `Connection: close` is delivered to.
    @Test func aSilentReceiverTimesOutAndOthersStillGetTheirs() async throws {
        let f = try await APIFixture { $0.webhookTimeout = 1 }
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(silent) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, len) } }
        listen(silent, 16)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(silent, $0, &len) } }
        let silentPort = UInt16(bigEndian: addr.sin_port)

        var router = Router()
        final class Count: Sendable { let n = Mutex(0) }
        let count = Count()
        router.add(.post, "/hook", bodyLimit: 1 << 20) { _ in
            count.n.withLock { $0 += 1 }
            var r = HTTPResponse.text("thanks")
            r.headers["connection"] = "close"
            return r
        }
        let good = HTTPServer(config: HTTPServerConfig(port: 0), router: router)
        try await good.start()
        let env = try f.app.store.environment(f.container, .development)
        let (stuck, _) = try env.webhooks.addWebhook(url: "http://127.0.0.1:\(silentPort)/never", recordTypes: [])
        _ = try env.webhooks.addWebhook(url: "http://127.0.0.1:\(good.port)/hook", recordTypes: [])
        _ = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"Memo"}}]}"#, user: f.aliceToken)
        for _ in 0..<100 where count.n.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(count.n.withLock { $0 } == 1)
        for _ in 0..<100 where try env.webhooks.webhookDeliveries(webhookID: stuck.id).first?.attempts ?? 0 == 0 { try await Task.sleep(for: .milliseconds(100)) }
        let attempt = try #require(try env.webhooks.webhookDeliveries(webhookID: stuck.id).first)
        #expect(attempt.state == "pending" && attempt.attempts >= 1 && attempt.lastError?.hasPrefix("no answer") == true, "\(attempt)")
        await good.stop()
    }

    @Test func badURLsAreRefused() throws {
        for bad in ["ftp://example.com/x", "http://user:pass@example.com/x", "javascript:alert(1)", "http:///nohost", "http://exa mple.com/",
                    "https://" + String(repeating: "a", count: 3000)] {
            #expect(throws: StratusError.self, "\(bad.prefix(40))") { try Webhook.validate(url: bad) }
        }
        try Webhook.validate(url: "https://hooks.example.com/stratus?x=1")
    }
}
