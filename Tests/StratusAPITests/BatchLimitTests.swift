import Foundation
import Testing
import StratusTestSupport
@testable import StratusAPI
@testable import StratusModel

/// CloudKit documents 400 items per operation and sync code splits its batches there: every endpoint that takes a
/// batch takes 400, and 401 is LIMIT_EXCEEDED (on which clients split and retry).
@Suite struct BatchLimitTests {
    static func items(_ n: Int, _ item: (Int) -> String) -> String { (0..<n).map(item).joined(separator: ",") }

    @Test func fourHundredItemsGoThroughEveryBatchEndpointAndOneMoreIsLimitExceeded() async throws {
        let f = try await APIFixture()
        let recordOp = { (i: Int) in #"{"operationType":"create","record":{"recordName":"r\#(i)","recordType":"Item","fields":{"n":{"value":\#(i)}}}}"# }
        let zoneOp = { (i: Int) in #"{"operationType":"create","zone":{"zoneID":{"zoneName":"Z\#(i)"}}}"# }
        let subscriptionOp = { (i: Int) in #"{"operationType":"create","subscription":{"subscriptionID":"s\#(i)","subscriptionType":"zone","zoneID":{"zoneName":"Z\#(i)"}}}"# }
        let cases: [(path: String, member: String, item: (Int) -> String, answers: String)] = [
            ("records/modify", "operations", recordOp, "records"),
            ("records/lookup", "records", { #"{"recordName":"r\#($0)"}"# }, "records"),
            ("zones/modify", "operations", zoneOp, "zones"),
            ("zones/lookup", "zones", { #"{"zoneID":{"zoneName":"Z\#($0)"}}"# }, "zones"),
            ("subscriptions/modify", "operations", subscriptionOp, "subscriptions"),
            ("subscriptions/lookup", "subscriptions", { #"{"subscriptionID":"s\#($0)"}"# }, "subscriptions"),
        ]
        for c in cases {
            let full = try await f.call(c.path, #"{"\#(c.member)":[\#(Self.items(400, c.item))]}"#, db: "private", user: f.aliceToken)
            let answers = full.json[c.answers]?.array ?? []
            #expect(full.status == 200 && answers.count == 400, "\(c.path): \(full.status) \(full.text.prefix(300))")
            #expect(answers.allSatisfy { $0["serverErrorCode"] == nil }, "\(c.path): \(answers.first { $0["serverErrorCode"] != nil } ?? .null)")
            let over = try await f.call(c.path, #"{"\#(c.member)":[\#(Self.items(401, c.item))]}"#, db: "private", user: f.aliceToken)
            #expect(over.json.code == "LIMIT_EXCEEDED", "\(c.path): \(over.text.prefix(300))")
        }
    }
}
