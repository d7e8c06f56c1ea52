import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
@testable import StratusStore
import StratusTestSupport

/// Uploads are charged to their uploader at once, expire when no record attaches them, and are collected; the
/// environment's quota is promised before a byte is written, so neither one user's orphans nor writers at once
/// take the quota from others.
@Suite struct UploadBudgetTests {
    static func blob(_ seed: Int, _ size: Int = 1 << 20) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }) }

    static func upload(_ f: APIFixture, _ bytes: Data, user: String) async throws -> (status: Int, body: JSON) {
        let tokens = try await f.call("assets/upload", #"{"tokens":[{"recordType":"Photo","fieldName":"image"}]}"#, user: user)
        let url = try #require(tokens.json["tokens"]?.array?.first?["url"]?.string, "\(tokens.text)")
        var req = URLRequest(url: URL(string: url)!)
        req.httpMethod = "POST"
        req.httpBody = bytes
        let (d, r) = try await f.session.data(for: req)
        return ((r as! HTTPURLResponse).statusCode, (try? JSON.parse(d)) ?? .null)
    }

    @Test(arguments: Backend.allCases) func oneUsersUnattachedUploadsAreTheirsAloneAndExpire(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend, configure: { c in
            c.storageQuotaBytes = 12 << 20
            c.userStorageQuotaBytes = 4 << 20
        }) else { return }
        let env = try f.app.store.environment(f.container, .development)
        // Alice uploads and attaches nothing: her own cap stops her, not the environment's.
        var accepted = 0
        for i in 0..<8 where try await Self.upload(f, Self.blob(i), user: f.aliceToken).status == 200 { accepted += 1 }
        #expect(accepted <= 4, "accepted \(accepted) MB of unattached uploads under a 4 MB cap")
        let refused = try await Self.upload(f, Self.blob(99), user: f.aliceToken)
        #expect(refused.body["serverErrorCode"]?.string == "QUOTA_EXCEEDED", "\(refused)")
        #expect(try env.quota.userUsage(f.alice.userRecordName) >= Int64(accepted) << 20)
        // Bob's upload and the record that uses it go through.
        let bobs = try await Self.upload(f, Self.blob(1000), user: f.bobToken)
        let single = try #require(bobs.body["singleFile"], "\(bobs)")
        let record = try await f.call("records/modify", AssetReceiptTests.create("bob-photo", asset: single.serialized), db: "private", user: f.bobToken)
        #expect(record.json.records.first?.code == nil, "\(record.text)")
        // Attached, Bob's upload is charged as his record's, once.
        #expect(try env.quota.userUsage(f.bob.userRecordName) < 2 << 20)
        // An upload's life past: Alice's are dropped, her charge given back, their content collected; Bob's stays.
        let later = WallClock.nowMillis() + AssetUploads.lifetime + 60_000
        let removed = try await offPool { try env.assets.tendUploads(now: later) }
        #expect(removed == accepted)
        #expect(try env.quota.userUsage(f.alice.userRecordName) == 0)
        let checksum = try #require(single["fileChecksum"]?.string)
        #expect(env.assets.assetContent(checksum: checksum) != nil)
        #expect(try await Self.upload(f, Self.blob(7), user: f.aliceToken).status == 200)
    }

    /// An orphan (content no record uses and no upload waits for) is what `stratus check` reports, until collected.
    @Test func theCheckReportsOrphansUntilTheyAreCollected() async throws {
        let f = try await APIFixture()
        let env = try f.app.store.environment(f.container, .development)
        _ = try await offPool { try env.assets.uploadAsset(Self.blob(5, 4096)) }
        try await offPool {
            try env.assets.write { db, _ in try db.execute("UPDATE assets SET created_at = 0") } as Void
        }
        let report = try await offPool { try env.consistency.run() }
        #expect(report.problems.contains { $0.contains("used by no record") }, "\(report.problems)")
        #expect(try await offPool { try env.assets.tendUploads() } == 1)
        #expect(try await offPool { try env.consistency.run() }.problems.isEmpty)
    }

    /// Uploads at once, and one after another faster than usage is measured, stop at the quota.
    @Test func writersAtOnceCannotPassTheQuotaTogether() async throws {
        let f = try await APIFixture { $0.storageQuotaBytes = 10 << 20 }
        let env = try f.app.store.environment(f.container, .development)
        let stored = try await offPool { () -> Int in
            let done = Atomic(0)
            DispatchQueue.concurrentPerform(iterations: 24) { i in
                if (try? env.assets.uploadAsset(Self.blob(i))) != nil { _ = done.add(1) }
            }
            return done.load()
        }
        #expect(stored >= 8 && stored <= 10, "stored \(stored) MB under a 10 MB quota")
        let more = try await offPool { () -> Int in
            var ok = 0
            for i in 100..<110 where (try? env.assets.uploadAsset(Self.blob(i))) != nil { ok += 1 }
            return ok
        }
        #expect(stored + more <= 10, "\(stored + more) MB stored under a 10 MB quota")
    }
}

/// A counter the concurrent uploads above add to.
final class Atomic: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int
    init(_ v: Int) { value = v }
    func add(_ n: Int) -> Int { lock.withLock { value += n; return value } }
    func load() -> Int { lock.withLock { value } }
}
