import Foundation
import Testing
@testable import StratusAPI
import StratusModel

/// `stratus serve --api-body-limit`: a larger body is refused with 413 and nothing is written.
@Suite struct BodyLimitTests {
    @Test func configuredBodyLimitRefusesLargerRequests() async throws {
        let f = try await APIFixture(apiBodyLimit: 64 * 1024)
        let big = String(repeating: "x", count: 70 * 1024)
        let op = #"{"operations":[{"operationType":"create","record":{"recordName":"big","recordType":"Note","fields":{"t":{"value":"\#(big)"}}}}]}"#
        let refused = try await f.call("records/modify", op, user: f.aliceToken)
        #expect(refused.status == 413)
        let small = #"{"operations":[{"operationType":"create","record":{"recordName":"small","recordType":"Note","fields":{"t":{"value":"ok"}}}}]}"#
        let saved = try await f.call("records/modify", small, user: f.aliceToken)
        #expect(saved.status == 200, "\(saved.status) \(saved.text)")
        let lookup = try await f.call("records/lookup", #"{"records":[{"recordName":"big"}]}"#, user: f.aliceToken)
        #expect(lookup.json.records.first?["serverErrorCode"]?.string == "NOT_FOUND")
    }
}
