import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore

/// Floods are answered as CloudKit answers them, and a container environment cannot grow past its quota.
@Suite struct LimitsTests {
    @Test func aFloodingUserIsThrottledWithRetryAfterAndOthersAreNot() async throws {
        // One request per 1,000 s: the second is over the limit however slowly the machine runs (in a fresh
        // clone's first run, requests at the suite's start took 20 s each, and a 20 s window had refilled).
        let f = try await APIFixture { $0.apiLimits = APILimits(perUserPerSecond: 0.001, perAddressPerSecond: 0) }
        #expect(try await f.call("users/caller", user: f.aliceToken).status == 200)
        let throttled = try await f.call("users/caller", user: f.aliceToken)
        #expect(throttled.status == 503 && throttled.json.code == "THROTTLED", "\(throttled.text)")
        let wait = try #require(throttled.json["retryAfter"]?.int64)
        #expect((1...1_000).contains(wait) && throttled.headers["retry-after"] == String(wait))
        // Bob is not held back by Alice's flood.
        #expect(try await f.call("users/caller", user: f.bobToken).status == 200)
    }

    @Test func aFloodingAddressIsThrottled() async throws {
        let f = try await APIFixture { $0.apiLimits = APILimits(perUserPerSecond: 0, perAddressPerSecond: 0.001) }
        #expect(try await f.call("zones/list").status == 200)
        let r = try await f.call("zones/list")
        #expect(r.status == 503 && r.json.code == "THROTTLED")
    }

    @Test func bucketsRefill() async throws {
        let limiter = RateLimiter(perSecond: 10, burst: 1)
        #expect(limiter.take("k") == nil && limiter.take("k") == 1 && limiter.take("other") == nil)
        try await Task.sleep(for: .milliseconds(150))
        #expect(limiter.take("k") == nil)
        #expect(RateLimiter(perSecond: 0).take("k") == nil, "0 turns the limit off")
    }

    @Test func writesPastTheQuotaAreRefusedAndDeletesStillWork() async throws {
        // One user may use the whole quota here: the per-user cap is StorageFairnessTests' subject.
        let f = try await APIFixture { $0.storageQuotaBytes = 400_000; $0.userStorageQuotaBytes = 400_000 }
        let blob = String(repeating: "x", count: 100_000)
        var results: [String?] = []
        for i in 0..<8 {
            let r = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"r\#(i)","recordType":"Big","fields":{"text":{"value":"\#(blob)"}}}}]}"#,
                                     user: f.aliceToken)
            results.append(r.json.code ?? r.json.records.first?.code)
            try await Task.sleep(for: .milliseconds(1_100))  // usage is measured once a second
            if results.last == "QUOTA_EXCEEDED" { break }
        }
        #expect(results.first == .some(nil) && results.last == "QUOTA_EXCEEDED", "\(results)")
        // An asset upload past the quota is refused too.
        let tokens = try await f.call("assets/upload", #"{"tokens":[{"recordType":"Big","fieldName":"file"}]}"#, user: f.aliceToken)
        let url = try #require(tokens.json["tokens"]?.array?.first?["url"]?.string)
        var req = URLRequest(url: URL(string: url)!)
        req.httpMethod = "POST"
        req.httpBody = Data(count: 10_000)
        let (body, response) = try await f.session.data(for: req)
        #expect((response as? HTTPURLResponse)?.statusCode == 413 && String(decoding: body, as: UTF8.self).contains("QUOTA_EXCEEDED"))
        // Deleting frees the way.
        let deleted = try await f.call("records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"r0"}}]}"#, user: f.aliceToken)
        #expect(deleted.json.records.first?.code == nil, "\(deleted.text)")
        let usage = try f.app.store.environment(f.container, .development).quota.storageUsage()
        #expect(usage.quotaBytes == 400_000 && usage.totalBytes > 0)
    }
}
