import Foundation
import Testing
import StratusTestSupport
@testable import StratusAPI
@testable import StratusModel

/// TIMESTAMPs on the wire: Web Services' whole milliseconds for every client that did not ask for more, `Date`'s
/// own seconds since 2001 for one that sends `X-Stratus-Timestamps: reference-seconds` (StratusKit).
@Suite struct TimestampWireTests {
    static let precise = ["X-Stratus-Timestamps": "reference-seconds"]
    /// A `Date` finer than a millisecond: `…269.9655557` seconds since 2001.
    static let seconds = 785_000_269.9655557

    @Test(arguments: Backend.allCases) func aClientThatAsksGetsTheSecondsItSavedAndOthersGetMilliseconds(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let save = #"{"operations":[{"operationType":"create","record":{"recordName":"e","recordType":"Event","fields":{"at":{"value":785000269.9655557,"type":"TIMESTAMP"},"days":{"value":[785000269.9655557,-1.5e9],"type":"TIMESTAMP_LIST"}}}}]}"#
        let saved = try await f.call("records/modify", save, db: "private", user: f.aliceToken, headers: Self.precise)
        #expect(saved.json.records.first?["fields"]?["at"]?["value"]?.double == Self.seconds, "\(saved.text)")

        // Every read path answers in the request's form: lookup, query, changes.
        let lookup = #"{"records":[{"recordName":"e"}]}"#
        let exact = try await f.call("records/lookup", lookup, db: "private", user: f.aliceToken, headers: Self.precise)
        #expect(exact.json.records.first?["fields"]?["at"]?["value"]?.double == Self.seconds)
        #expect(exact.json.records.first?["fields"]?["days"]?["value"]?.array?.compactMap(\.double) == [Self.seconds, -1.5e9])
        let plain = try await f.call("records/lookup", lookup, db: "private", user: f.aliceToken)
        #expect(plain.json.records.first?["fields"]?["at"]?["value"] == .int(1_763_307_469_966), "\(plain.text)")
        #expect(plain.json.records.first?["fields"]?["days"]?["value"] == .array([.int(1_763_307_469_966), .int(-521_692_800_000)]))
        // Record stamps stay in milliseconds either way.
        #expect(exact.json.records.first?["created"]?["timestamp"]?.int64 != nil)
        #expect(!(exact.text.contains(#""timestamp":7"#)))

        let query = #"{"query":{"recordType":"Event","filterBy":[{"fieldName":"at","comparator":"EQUALS","fieldValue":{"value":785000269.9655557,"type":"TIMESTAMP"}}]}}"#
        let found = try await f.call("records/query", query, db: "private", user: f.aliceToken, headers: Self.precise)
        #expect(found.json.names == ["e"], "\(found.text)")
        #expect(found.json.records.first?["fields"]?["at"]?["value"]?.double == Self.seconds)
        // The same number read as milliseconds is another instant: nothing.
        let asMillis = try await f.call("records/query", query, db: "private", user: f.aliceToken)
        #expect(asMillis.status != 200 || asMillis.json.names.isEmpty, "\(asMillis.text)")
        // A millisecond neighbour does not match at full precision.
        let near = #"{"query":{"recordType":"Event","filterBy":[{"fieldName":"at","comparator":"EQUALS","fieldValue":{"value":1763307469966,"type":"TIMESTAMP"}}]}}"#
        #expect(try await f.call("records/query", near, db: "private", user: f.aliceToken).json.names.isEmpty)

        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Log"}}}]}"#, db: "private", user: f.aliceToken)
        let logged = #"{"zoneID":{"zoneName":"Log"},"operations":[{"operationType":"create","record":{"recordName":"l","recordType":"Event","fields":{"at":{"value":785000269.9655557,"type":"TIMESTAMP"}}}}]}"#
        _ = try await f.call("records/modify", logged, db: "private", user: f.aliceToken, headers: Self.precise)
        let changes = try await f.call("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Log"}}]}"#, db: "private", user: f.aliceToken, headers: Self.precise)
        #expect(changes.text.contains("785000269.9655557"), "\(changes.text)")
    }

    @Test(arguments: Backend.allCases) func secondsThatAreNoTimestampAreRefused(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        for value in [#""785000269.5""#, "1e300", "-1e300"] {
            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Event","fields":{"at":{"value":\#(value),"type":"TIMESTAMP"}}}}]}"#
            let r = try await f.call("records/modify", body, db: "private", user: f.aliceToken, headers: Self.precise)
            #expect((r.json.code ?? r.json.records.first?.code) == "BAD_REQUEST", "\(value): \(r.text)")
        }
        // Milliseconds out of the range a TIMESTAMP holds are refused too, rather than stored differently.
        let far = #"{"operations":[{"operationType":"create","record":{"recordName":"y","recordType":"Event","fields":{"at":{"value":9000000000000000000,"type":"TIMESTAMP"}}}}]}"#
        let r = try await f.call("records/modify", far, db: "private", user: f.aliceToken)
        #expect((r.json.code ?? r.json.records.first?.code) == "BAD_REQUEST", "\(r.text)")
    }
}
