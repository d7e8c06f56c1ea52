import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// A store written before v28 kept each subscription twice: its wire document and a parsed copy (`spec`, JSON of
/// `Subscription`), both charged to its owner. Opening it keeps the document alone, gives the owner back what the
/// copy took, and matches writes against the document as before.
@Suite struct SubscriptionsOnceMigrationTests {
    static let document = #"{"subscriptionID":"notes","subscriptionType":"query","query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"kind","fieldValue":{"value":"urgent"}}]},"firesOn":["create"],"notificationInfo":{"alertBody":"urgent"}}"#

    @Test(arguments: Backend.allCases)
    func theParsedCopyGoesAndItsChargeWithIt(_ backend: Backend) async throws {
        try await offPool {
            guard let f = try Fixture.make(backend) else { return }
            try f.dev.subscriptions.saveSubscription("notes", document: Self.document, in: .public, owner: "_alice")
            try f.dev.subscriptions.saveSubscription("mine", document: #"{"subscriptionType":"database"}"#, in: .private,
                                                     owner: "_alice")
            let charged = try f.dev.core.read { s, _ in try UserUsage.bytes("_alice", s) }
            // The same data as the release before wrote it: each subscription's parsed copy beside it, charged too.
            let copies = [("public", "notes", try Subscription(wire: JSON.parse(Data(Self.document.utf8)), id: "notes",
                                                             database: .public)),
                          ("private", "mine", Subscription(subscriptionID: "mine", kind: .database))]
            try f.dev.core.database.write { s in
                try s.execute("ALTER TABLE subscriptions ADD COLUMN spec TEXT", [])
                for (scope, id, sub) in copies {
                    let spec = String(decoding: try JSONEncoder().encode(sub), as: UTF8.self)
                    try s.execute("UPDATE subscriptions SET spec = ? WHERE scope = ? AND subscription_id = ?",
                                  [.text(spec), .text(scope), .text(id)])
                    try UserUsage.add(["_alice": Int64(spec.utf8.count)], s)
                }
                try Fixture.forgetMigration("v28-subscriptions-once", s)
            }
            #expect(try f.dev.core.read { s, _ in try UserUsage.bytes("_alice", s) } > charged)

            let reopened = try f.reopen()
            defer { reopened.store.close() }
            let env = reopened.dev
            #expect(try env.core.read { s, _ in try UserUsage.bytes("_alice", s) } == charged,
                    "the owner is charged for the document alone")
            #expect(throws: (any Error).self, "the copy's column is gone") {
                try env.core.read { s, _ in try s.execute("SELECT spec FROM subscriptions", []) }
            }
            let index = try env.core.read { s, _ in try env.subscriptions.index(s) }
            #expect(index.publicByType["Note"]?.all.map(\.subscription.subscriptionID) == ["notes"],
                    "writes are matched against the document")
            #expect(try env.subscriptions.subscription("notes", in: .public, owner: "_alice") != nil)
            try env.subscriptions.deleteSubscription("notes", in: .public, owner: "_alice")
            try env.subscriptions.deleteSubscription("mine", in: .private, owner: "_alice")
            #expect(try env.core.read { s, _ in try UserUsage.bytes("_alice", s) } == 0, "nothing is left charged")
        }
    }
}
