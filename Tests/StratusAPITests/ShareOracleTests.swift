import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusTestSupport

/// A read-write participant of a hierarchy share cannot tell a record name that exists outside the share from one
/// that does not exist: a reference that asks for validation, an update, a delete and a save without a parent in
/// the share get the same answer for both.
@Suite(.serialized) struct ShareOracleTests {
    @Test(arguments: Backend.allCases) func anUnsharedNameLooksLikeAMissingOne(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await SharingTests.people(f)
        let t = SharingTests()
        let zone = #"{"zoneName":"Lists","ownerRecordName":"\#(p.owner.userRecordName)"}"#
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        let made = try await t.modify(f, [t.create("root", "List"), t.create("a", parent: "root"), t.create("private-diary"),
                                          #"{"operationType":"create","record":{"recordName":"s","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"participants":[{"userIdentity":{"lookupInfo":{"userRecordName":"\#(p.member.userRecordName)"}},"permission":"READ_WRITE"}]}}"#].joined(separator: ","), user: p.ownerToken)
        let guid = try #require(made.json.records.last?["shortGUID"]?.string, "\(made.text)")
        _ = try await f.call("records/accept", #"{"shortGUIDs":["\#(guid)"]}"#, user: p.memberToken)

        func answer(_ op: String) async throws -> String {
            let r = try await t.modify(f, op, zone: zone, db: "shared", user: p.memberToken)
            let record = r.json.records.first
            return "\(r.status) \(record?.code ?? "ok") \((record?["reason"]?.string ?? "").replacingOccurrences(of: "private-diary", with: "NAME").replacingOccurrences(of: "no-such-record", with: "NAME"))"
        }
        let probes: [(String) -> String] = [
            // A shared record whose reference asks the server to check its target.
            { n in #"{"operationType":"forceUpdate","record":{"recordName":"a","recordType":"Item","fields":{"see":{"value":{"recordName":"\#(n)","action":"VALIDATE"},"type":"REFERENCE"}}}}"# },
            { n in #"{"operationType":"update","record":{"recordName":"\#(n)","recordType":"Item","recordChangeTag":"x","fields":{"title":{"value":"x"}}}}"# },
            { n in #"{"operationType":"forceDelete","record":{"recordName":"\#(n)"}}"# },
            { n in #"{"operationType":"create","record":{"recordName":"\#(n)","recordType":"Item","fields":{"title":{"value":"x"}}}}"# },
            { n in #"{"operationType":"forceUpdate","record":{"recordName":"\#(n)","recordType":"Item","parent":{"recordName":"private-diary"}}}"# },
            // With a parent in the share: an update and a delete of either are NOT_FOUND.
            { n in #"{"operationType":"update","record":{"recordName":"\#(n)","recordType":"Item","recordChangeTag":"x","parent":{"recordName":"root"}}}"# },
            { n in #"{"operationType":"forceDelete","record":{"recordName":"\#(n)","parent":{"recordName":"root"}}}"# },
        ]
        for probe in probes {
            let unshared = try await answer(probe("private-diary"))
            let missing = try await answer(probe("no-such-record"))
            #expect(unshared == missing, "\(probe("NAME")): \(unshared) ≠ \(missing)")
            #expect(!unshared.hasPrefix("200 ok"), "\(probe("NAME")) was let through: \(unshared)")
        }
        // The owner's record is untouched.
        let owner = try await f.call("records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"private-diary"}]}"#, db: "private", user: p.ownerToken)
        #expect(owner.json.records.first?["fields"]?["title"]?["value"]?.string == "private-diary", "\(owner.text)")
        // A reference to a shared record still validates.
        let good = try await answer(#"{"operationType":"forceUpdate","record":{"recordName":"a","recordType":"Item","fields":{"see":{"value":{"recordName":"root","action":"VALIDATE"},"type":"REFERENCE"}}}}"#)
        #expect(good.hasPrefix("200 ok"), "\(good)")
    }
}
