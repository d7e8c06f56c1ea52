import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusServer
@testable import StratusStore
import StratusTestSupport

/// One user must not cost another their writes: a subscription is bounded in size, and each user's data (private
/// records, the public records they created, their subscriptions) is held to a cap, a tenth of the environment's
/// quota by default, so that no single user can fill the environment.
@Suite struct StorageFairnessTests {
    static func subscription(_ id: String, info: String = #"{"alertBody":"hi"}"#, filters: String = "[]", type: String = "Note") -> String {
        #"{"operationType":"create","subscription":{"subscriptionID":"\#(id)","subscriptionType":"query","query":{"recordType":"\#(type)","filterBy":\#(filters)},"firesOn":["create"],"notificationInfo":\#(info)}}"#
    }

    static func modify(_ f: APIFixture, _ ops: [String], user: String, db: String = "private") async throws -> APIFixture.Reply {
        try await f.call("subscriptions/modify", #"{"operations":[\#(ops.joined(separator: ","))]}"#, db: db, user: user)
    }

    @Test func aSubscriptionIsBoundedInSize() async throws {
        let f = try await APIFixture()
        // A type with two fields, so that desiredKeys can be checked against it.
        let seed = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"t"},"body":{"value":"b"}}}}]}"#,
                                    db: "private", user: f.aliceToken)
        #expect(seed.status == 200)
        let big = String(repeating: "x", count: 5000)
        let keys = (0..<30).map { "\"k\($0)_\(String(repeating: "y", count: 200))\"" }.joined(separator: ",")
        let filters = "[" + (0..<40).map { _ in #"{"comparator":"EQUALS","fieldName":"title","fieldValue":{"value":"\#(String(repeating: "z", count: 250))"}}"# }.joined(separator: ",") + "]"
        let cases: [(String, String)] = [
            // The alert, sound and badge alone have their own, tighter bound (1 KB).
            (Self.subscription("alert", info: #"{"alertBody":"\#(big)"}"#), "BAD_REQUEST"),
            (Self.subscription("keys", info: #"{"desiredKeys":[\#(keys)]}"#), "LIMIT_EXCEEDED"),
            (Self.subscription("long-key", info: #"{"desiredKeys":["\#(String(repeating: "a", count: 256))"]}"#), "BAD_REQUEST"),
            (Self.subscription("not-a-field", info: #"{"desiredKeys":["title","nope"]}"#), "BAD_REQUEST"),
            (Self.subscription("predicate", filters: filters), "LIMIT_EXCEEDED"),
            (Self.subscription("fine", info: #"{"alertBody":"new note","desiredKeys":["title","body"]}"#), ""),
        ]
        let r = try await Self.modify(f, cases.map(\.0), user: f.aliceToken)
        #expect(r.status == 200, "\(r.text.prefix(300))")
        let answers = r.json["subscriptions"]?.array ?? []
        #expect(answers.count == cases.count)
        for (i, (_, code)) in cases.enumerated() where i < answers.count {
            #expect((answers[i].code ?? "") == code, "\(answers[i]["subscriptionID"]?.string ?? "?"): \(answers[i]["reason"]?.string ?? "")")
        }
    }

    /// The probe: one user creating subscriptions (and records) until refused. They are refused at their own cap,
    /// with QUOTA_EXCEEDED, while another user's writes go on.
    @Test func oneUserCannotFillTheEnvironment() async throws {
        let f = try await APIFixture { $0.storageQuotaBytes = 4 << 20 }   // a user's cap: 400 KB
        let info = #"{"alertBody":"\#(String(repeating: "m", count: 1000))","desiredKeys":["title"]}"#
        var refused = false
        var made = 0
        for batch in 0..<40 where !refused {
            let ops = (0..<20).map { Self.subscription("s\(batch)-\($0)", info: info) }
            let r = try await Self.modify(f, ops, user: f.bobToken, db: "public")
            let codes = (r.json["subscriptions"]?.array ?? []).map { $0.code ?? "" }
            made += codes.filter { $0.isEmpty }.count
            if codes.contains("QUOTA_EXCEEDED") { refused = true }
            #expect(codes.allSatisfy { $0.isEmpty || $0 == "QUOTA_EXCEEDED" }, "\(r.text.prefix(300))")
        }
        #expect(refused, "bob made \(made) subscriptions and was never refused")
        let used = try await offPool { try f.app.store.environment(f.container, .development).quota.userUsage(APIFixture.bobUser.userRecordName) }
        #expect(used <= (4 << 20) / 10, "bob uses \(used) bytes")
        // Bob's records are refused too, now that he is at his cap…
        let note = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"\#(String(repeating: "b", count: 20_000))"}}}}]}"#
        let bobs = try await f.call("records/modify", note, db: "private", user: f.bobToken)
        #expect(bobs.json.records.first?.code == "QUOTA_EXCEEDED", "\(bobs.text.prefix(300))")
        // … while Alice, within hers, writes as before.
        for _ in 0..<3 {
            let alices = try await f.call("records/modify", note, db: "private", user: f.aliceToken)
            #expect(alices.status == 200 && alices.json.records.first?.code == nil, "\(alices.text.prefix(300))")
        }
        // Bob deletes a subscription and has room again.
        let deleted = try await Self.modify(f, [#"{"operationType":"delete","subscription":{"subscriptionID":"s0-0"}}"#], user: f.bobToken, db: "public")
        #expect(deleted.json["subscriptions"]?.array?.first?.code == nil)
        let after = try await offPool { try f.app.store.environment(f.container, .development).quota.userUsage(APIFixture.bobUser.userRecordName) }
        #expect(after < used)
    }

    /// Over the environment's quota, a new subscription is refused like a new record.
    @Test func anEnvironmentOverItsQuotaTakesNoNewSubscription() async throws {
        let f = try await APIFixture { $0.storageQuotaBytes = 1 }
        let r = try await Self.modify(f, [Self.subscription("late")], user: f.aliceToken)
        #expect(r.json["subscriptions"]?.array?.first?.code == "QUOTA_EXCEEDED", "\(r.text.prefix(300))")
    }

    /// Usage is counted from what a store already holds the first time it opens with this version, and a purge
    /// gives it back.
    @Test func usageIsCountedForDataThatWasThere() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-usage-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Usage")
        let user = "_" + String(repeating: "c3", count: 16)
        try await offPool {
            let store = try ServerStore(dataDirectory: data, durability: .relaxed)
            try store.createContainer(container)
            let env = try store.environment(container, .development)
            let records = (0..<10).map { i in StoredRecord(recordName: "r\(i)", recordType: "Note", fields: ["t": .string(String(repeating: "q", count: 1000))]) }
            _ = try env.records.modify(records.map { RecordOperation(.create, $0) }, in: .privateDatabase(of: user), actor: RequestActor(userRecordName: user))
            let counted = try env.quota.userUsage(user)
            #expect(counted >= 10 * 1000 && counted < 10 * 1400, "\(counted)")
            // As a store made before usage was kept: no counts, and not marked counted.
            _ = try env.core.write { s, _ in try s.execute("DELETE FROM user_usage"); try s.execute("DELETE FROM meta WHERE key = 'user_usage_counted'") }
            store.close()
            let reopened = try ServerStore(dataDirectory: data, durability: .relaxed)
            let again = try reopened.environment(container, .development)
            #expect(try again.quota.userUsage(user) == counted)
            try again.zones.purgeUserData(user)
            #expect(try again.quota.userUsage(user) == 0)
            reopened.close()
        }
    }
}
