import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore

@Suite struct RecordsEndpointTests {
    @Test(arguments: Backend.allCases) func modifyQueryLookupRoundTripInCloudKitShapes(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        // Typed and untyped values, as real clients send them, with text/plain like CloudKit JS.
        let modify = """
            {"operations":[
              {"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{
                "title":{"value":"Hello <b>world</b>","type":"STRING"},"count":{"value":3},"ratio":{"value":0.5},
                "when":{"value":1700000000000,"type":"TIMESTAMP"},"tags":{"value":["a","b"]},
                "where":{"value":{"latitude":48.85,"longitude":2.35}},"data":{"value":"AAEC","type":"BYTES"},
                "big":{"value":9007199254740993,"type":"INT64"}}}},
              {"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"second"}}}}
            ]}
            """
        let saved = try await f.call("records/modify", modify, user: f.aliceToken)
        #expect(saved.status == 200, "\(saved.text)")
        let first = try #require(saved.json.records.first)
        #expect(first["recordChangeTag"]?.string?.isEmpty == false)
        #expect(first["created"]?["userRecordName"]?.string == f.alice.userRecordName)
        #expect(first["fields"]?["count"]?["type"]?.string == "INT64")
        #expect(first["fields"]?["ratio"]?["type"]?.string == "DOUBLE")
        #expect(first["fields"]?["tags"]?["type"]?.string == "STRING_LIST")
        #expect(first["fields"]?["where"]?["type"]?.string == "LOCATION")
        #expect(first["fields"]?["big"]?["value"] == .int(9007199254740993))
        #expect(saved.json.records[1]["recordName"]?.string?.count == 36, "a UUID is made for a nameless create")
        // < and > never appear raw in JSON.
        #expect(!saved.text.contains("<b>"))

        let q = try await f.call("records/query", #"{"query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"count","fieldValue":{"value":3}}]},"numbersAsStrings":true}"#)
        #expect(q.status == 200 && q.json.names == ["n1"])
        #expect(q.json.records[0]["fields"]?["big"]?["value"] == .string("9007199254740993"))
        let lookup = try await f.call("records/lookup", #"{"records":[{"recordName":"n1"},{"recordName":"missing"}],"desiredKeys":["title"]}"#)
        #expect(lookup.json.records.count == 2)
        #expect(lookup.json.records[0]["fields"]?.object?.keys.sorted() == ["title"])
        #expect(lookup.json.records[1].code == "NOT_FOUND" && lookup.json.records[1]["recordName"]?.string == "missing")
    }

    /// A lookup answers a record as its save and a query do, whichever way the server reads it: the first lookup of a
    /// type teaches the server the type, the ones after read the record in the directory's statement and write it
    /// from the row; names in another order, a missing one and `numbersAsStrings` all come back as asked.
    @Test(arguments: Backend.allCases) func lookupsAnswerRecordsAsSavesAndQueriesDo(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let modify = """
            {"operations":[
              {"operationType":"create","record":{"recordName":"b","recordType":"Note","fields":{
                "title":{"value":"Hello","type":"STRING"},"count":{"value":3},"ratio":{"value":0.5},
                "when":{"value":1700000000000,"type":"TIMESTAMP"},"tags":{"value":["a","b"]},
                "where":{"value":{"latitude":48.85,"longitude":2.35}},"data":{"value":"AAEC","type":"BYTES"},
                "big":{"value":9007199254740993,"type":"INT64"}}}},
              {"operationType":"create","record":{"recordName":"a","recordType":"Note","fields":{"title":{"value":"é"}}}}
            ]}
            """
        let saved = try await f.call("records/modify", modify, user: f.aliceToken)
        #expect(saved.status == 200, "\(saved.text)")
        let query = try await f.call("records/query", #"{"query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"count","fieldValue":{"value":3}}]}}"#)
        for _ in 0..<3 {
            let one = try await f.call("records/lookup", #"{"records":[{"recordName":"b"}]}"#)
            #expect(one.status == 200 && one.json.records.count == 1)
            #expect(one.json.records.first == saved.json.records.first, "\(one.text)")
            #expect(one.json.records.first == query.json.records.first)
        }
        let both = try await f.call("records/lookup", #"{"records":[{"recordName":"b"},{"recordName":"missing"},{"recordName":"a"}]}"#)
        #expect(both.json.records.count == 3)
        #expect(both.json.records[0] == saved.json.records[0])
        #expect(both.json.records[1].code == "NOT_FOUND")
        #expect(both.json.records[2] == saved.json.records[1])
        let reversed = try await f.call("records/lookup", #"{"records":[{"recordName":"b"},{"recordName":"a"}]}"#)
        #expect(reversed.json.names == ["b", "a"])
        let strings = try await f.call("records/lookup", #"{"records":[{"recordName":"b"}],"numbersAsStrings":true}"#)
        #expect(strings.json.records.first?["fields"]?["big"]?["value"] == .string("9007199254740993"))
    }

    @Test(arguments: Backend.allCases) func conflictsComeBackPerRecordInside200(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let created = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"n","recordType":"Note","fields":{"v":{"value":1}}}}]}"#, user: f.aliceToken)
        let tag = try #require(created.json.records[0]["recordChangeTag"]?.string)
        let update = #"{"operations":[{"operationType":"update","record":{"recordName":"n","recordType":"Note","recordChangeTag":"TAG","fields":{"v":{"value":2}}}}],"atomic":false}"#
        let ok = try await f.call("records/modify", update.replacingOccurrences(of: "TAG", with: tag), user: f.aliceToken)
        #expect(ok.status == 200 && ok.json.records[0]["fields"]?["v"]?["value"] == .int(2))
        let stale = try await f.call("records/modify", update.replacingOccurrences(of: "TAG", with: tag), user: f.aliceToken)
        #expect(stale.status == 200)
        #expect(stale.json.records[0].code == "CONFLICT")
        #expect(stale.json.records[0]["serverRecord"]?["fields"]?["v"]?["value"] == .int(2))
    }

    @Test(arguments: Backend.allCases) func writesNeedAUserAndRolesApply(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let anonymous = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Note"}}]}"#)
        #expect(anonymous.status == 421 && anonymous.json.code == "AUTHENTICATION_REQUIRED")
        _ = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"Note","fields":{"t":{"value":"x"}}}}]}"#, user: f.aliceToken)
        // Default grants: everyone reads, only the creator writes.
        #expect(try await f.call("records/lookup", #"{"records":[{"recordName":"a"}]}"#).json.names == ["a"])
        let bobWrites = try await f.call("records/modify", #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"a","recordType":"Note","fields":{"t":{"value":"mine"}}}}]}"#, user: f.bobToken)
        #expect(bobWrites.status == 200 && bobWrites.json.records[0].code == "ACCESS_DENIED")
        let bobDeletes = try await f.call("records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"a"}}]}"#, user: f.bobToken)
        #expect(bobDeletes.json.records[0].code == "ACCESS_DENIED")
        let aliceDeletes = try await f.call("records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"a"}}]}"#, user: f.aliceToken)
        #expect(aliceDeletes.json.records[0]["deleted"] == .bool(true))
    }

    @Test(arguments: Backend.allCases) func privateDatabasesAreIsolated(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Secret"}}}]}"#, db: "private", user: f.aliceToken)
        let w = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Secret"},"operations":[{"operationType":"create","record":{"recordName":"diary","recordType":"Entry","fields":{"t":{"value":"alice's"}}}}]}"#, db: "private", user: f.aliceToken)
        #expect(w.json.records[0]["recordName"]?.string == "diary")
        // Whatever bob names — alice's zone, her owner name, a zone-wide query — he sees only his own (empty) database.
        let attempts: [(String, String)] = [
            ("records/lookup", #"{"zoneID":{"zoneName":"Secret","ownerRecordName":"ALICE"},"records":[{"recordName":"diary"}]}"#),
            ("records/query", #"{"zoneID":{"zoneName":"Secret","ownerRecordName":"ALICE"},"query":{"recordType":"Entry"}}"#),
            ("records/query", #"{"zoneWide":true,"query":{"recordType":"Entry"}}"#),
            ("records/changes", #"{"zoneID":{"zoneName":"Secret","ownerRecordName":"ALICE"}}"#),
            ("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Secret","ownerRecordName":"ALICE"}}]}"#),
            ("zones/lookup", #"{"zones":[{"zoneName":"Secret","ownerRecordName":"ALICE"}]}"#),
            ("changes/database", "{}"),
            ("zones/list", "{}"),
        ]
        for (path, body) in attempts {
            let r = try await f.call(path, body.replacingOccurrences(of: "ALICE", with: f.alice.userRecordName), db: "private", user: f.bobToken)
            #expect(!r.text.contains("diary") && !r.text.contains("alice's"), "\(path) leaked: \(r.text.prefix(300))")
            // Alice's zone name may only come back as bob's own request echoed in a ZONE_NOT_FOUND.
            #expect(!r.text.contains("Secret") || r.text.contains("ZONE_NOT_FOUND") || r.status == 404, "\(path) leaked: \(r.text.prefix(300))")
        }
        let mine = try await f.call("records/query", #"{"zoneID":{"zoneName":"Secret"},"query":{"recordType":"Entry"}}"#, db: "private", user: f.aliceToken)
        #expect(mine.json.names == ["diary"])
    }

    @Test(arguments: Backend.allCases) func zonesAndChangeFeeds(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let start = try await f.call("changes/database", "{}", db: "private", user: f.aliceToken)
        let dbToken = try #require(start.json["syncToken"]?.string)
        let created = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Inbox"}}}]}"#, db: "private", user: f.aliceToken)
        #expect(created.json["zones"]?.array?.first?["zoneID"]?["zoneName"]?.string == "Inbox")
        let ops = (0..<250).map { #"{"operationType":"create","record":{"recordName":"m\#($0)","recordType":"Mail","fields":{"n":{"value":\#($0)}}}}"# }
        _ = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Inbox"},"operations":[\#(ops.prefix(200).joined(separator: ","))]}"#, db: "private", user: f.aliceToken)
        _ = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Inbox"},"operations":[\#(ops.suffix(50).joined(separator: ","))]}"#, db: "private", user: f.aliceToken)
        let dbChanges = try await f.call("changes/database", #"{"syncToken":"\#(dbToken)"}"#, db: "private", user: f.aliceToken)
        #expect(dbChanges.json["zones"]?.array?.map { $0["zoneID"]?["zoneName"]?.string } == ["Inbox"])

        var token: String? = nil
        var seen: [String] = []
        var pages = 0
        repeat {
            let body = token.map { #"{"zones":[{"zoneID":{"zoneName":"Inbox"},"syncToken":"\#($0)"}]}"# } ?? #"{"zones":[{"zoneID":{"zoneName":"Inbox"}}]}"#
            let page = try await f.call("changes/zone", body, db: "private", user: f.aliceToken)
            let z = try #require(page.json["zones"]?.array?.first)
            seen += z.records.compactMap { $0["recordName"]?.string }
            token = z["syncToken"]?.string
            pages += 1
            if z["moreComing"] != .bool(true) { break }
        } while pages < 10
        #expect(seen.count == 250 && pages == 2)
        _ = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Inbox"},"operations":[{"operationType":"forceDelete","record":{"recordName":"m7"}}]}"#, db: "private", user: f.aliceToken)
        let delta = try await f.call("records/changes", #"{"zoneID":{"zoneName":"Inbox"},"syncToken":"\#(token!)"}"#, db: "private", user: f.aliceToken)
        #expect(delta.json.records.map { $0["recordName"]?.string } == ["m7"] && delta.json.records[0]["deleted"] == .bool(true))
        // A page mixing a deletion, an update and another type, beside a zone that does not exist: each zone answers
        // on its own, records carry only the desired keys, deletions come as deleted entries.
        _ = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Inbox"},"operations":[{"operationType":"forceUpdate","record":{"recordName":"m3","fields":{"n":{"value":333}}}},{"operationType":"create","record":{"recordName":"l1","recordType":"Letter","fields":{"n":{"value":1},"to":{"value":"Bob"}}}}]}"#, db: "private", user: f.aliceToken)
        let mixed = try await f.call("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Inbox"},"syncToken":"\#(token!)"},{"zoneID":{"zoneName":"Nope"}}],"desiredKeys":["n"]}"#, db: "private", user: f.aliceToken)
        let zonesOut = try #require(mixed.json["zones"]?.array)
        #expect(zonesOut.count == 2 && zonesOut[1].code == "ZONE_NOT_FOUND")
        let recs = zonesOut[0].records
        #expect(Set(recs.compactMap { $0["recordName"]?.string }) == ["m7", "m3", "l1"])
        #expect(recs.first { $0["recordName"]?.string == "m7" }?["deleted"] == .bool(true))
        #expect(recs.first { $0["recordName"]?.string == "m3" }?["fields"]?["n"]?["value"] == .int(333))
        #expect(recs.first { $0["recordName"]?.string == "l1" }?["fields"]?["to"] == nil)
        #expect(recs.first { $0["recordName"]?.string == "l1" }?["recordType"]?.string == "Letter")
        let garbage = try await f.call("records/changes", #"{"zoneID":{"zoneName":"Inbox"},"syncToken":"garbage"}"#, db: "private", user: f.aliceToken)
        #expect(garbage.status == 400 && garbage.json.code == "BAD_REQUEST")
        let listed = try await f.call("zones/list", db: "private", user: f.aliceToken)
        #expect(listed.json["zones"]?.array?.compactMap { $0["zoneID"]?["zoneName"]?.string } == ["_defaultZone", "Inbox"])
        let deleted = try await f.call("zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Inbox"}}}]}"#, db: "private", user: f.aliceToken)
        #expect(deleted.json["zones"]?.array?.first?["deleted"] == .bool(true))
        // The zone is named with its owner as creates and lists name it, not the public database's placeholder.
        let listedOwner = listed.json["zones"]?.array?.last?["zoneID"]?["ownerRecordName"]?.string
        #expect(listedOwner == f.alice.userRecordName && deleted.json["zones"]?.array?.first?["zoneID"]?["ownerRecordName"]?.string == listedOwner)
        let missing = try await f.call("zones/lookup", #"{"zones":[{"zoneName":"Inbox"}]}"#, db: "private", user: f.aliceToken)
        #expect(missing.json["zones"]?.array?.first?.code == "ZONE_NOT_FOUND")
    }

    @Test(arguments: Backend.allCases) func malformedRequestsAreClearErrorsNeverServerErrors(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let cases: [(String, String)] = [
            ("records/query", "not json"), ("records/query", "{}"), ("records/query", #"{"query":{"recordType":""}}"#),
            ("records/query", #"{"query":{"recordType":"Note","filterBy":[{"comparator":"SOMETIMES","fieldName":"x","fieldValue":{"value":1}}]}}"#),
            ("records/query", #"{"query":{"recordType":"Note","filterBy":[{"comparator":"IN","fieldName":"x","fieldValue":{"value":1}}]}}"#),
            ("records/query", #"{"resultsLimit":"lots","query":{"recordType":"Note"}}"#),
            ("records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"b":{"value":true}}}}]}"#),
            ("records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"t":{"value":1.5,"type":"TIMESTAMP"}}}}]}"#),
            ("records/modify", #"{"operations":[{"operationType":"explode","record":{}}]}"#),
            ("records/modify", #"{"operations":"all"}"#),
            ("records/lookup", #"{"records":[{"name":"x"}]}"#),
            ("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"../etc"}}}]}"#),
            ("nonsense/endpoint", "{}"),
        ]
        for (path, body) in cases {
            let r = try await f.call(path, body, user: f.aliceToken)
            #expect(r.status < 500, "\(path) \(body) → \(r.status) \(r.text)")
            let code = r.json.code ?? r.json.records.first?.code ?? r.json["zones"]?.array?.first?.code
            #expect(code != nil && code != "INTERNAL_ERROR", "\(path) \(body) → \(r.text)")
        }
        let tooMany = (0...400).map { _ in #"{"operationType":"create","record":{"recordType":"Note"}}"# }.joined(separator: ",")
        let over = try await f.call("records/modify", #"{"operations":[\#(tooMany)]}"#, user: f.aliceToken)
        // CloudKit's LIMIT_EXCEEDED, on which clients split the batch and retry.
        #expect(over.status == 413 && over.json.code == "LIMIT_EXCEEDED")
    }
}

/// What an independent client sends without types: BYTES as base64 text, TIMESTAMP as a JavaScript number.
@Suite struct UntypedValueTests {
    @Test(arguments: Backend.allCases) func untypedTextIsBytesAndFractionalMillisAreTimestamps(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let typed = #"{"operations":[{"operationType":"create","record":{"recordName":"t","recordType":"Blob","fields":{"data":{"value":"AAEC","type":"BYTES"},"when":{"value":1700000000000,"type":"TIMESTAMP"}}}}]}"#
        #expect(try await f.call("records/modify", typed, user: f.aliceToken).json.records.first?.code == nil)
        let untyped = #"{"operations":[{"operationType":"create","record":{"recordName":"u","recordType":"Blob","fields":{"data":{"value":"AQID"},"when":{"value":1700000000123.75},"list":{"value":["AAE="]}}}}]}"#
        let r = try await f.call("records/modify", untyped, user: f.aliceToken)
        let fields = r.json.records.first?["fields"]
        #expect(fields?["data"]?["type"]?.string == "BYTES" && fields?["data"]?["value"]?.string == "AQID", "\(r.text)")
        #expect(fields?["when"]?["type"]?.string == "TIMESTAMP" && fields?["when"]?["value"] == .int(1700000000123), "\(r.text)")
        let bad = #"{"operations":[{"operationType":"create","record":{"recordName":"v","recordType":"Blob","fields":{"data":{"value":"not base64!"}}}}]}"#
        let refused = try await f.call("records/modify", bad, user: f.aliceToken)
        #expect(refused.json.records.first?.code == "BAD_REQUEST" && refused.text.contains("base64"))
        // A typed TIMESTAMP with a fraction is still refused, as CloudKit does.
        let fraction = #"{"operations":[{"operationType":"create","record":{"recordName":"w","recordType":"Blob","fields":{"when":{"value":1.5,"type":"TIMESTAMP"}}}}]}"#
        let typedFraction = try await f.call("records/modify", fraction, user: f.aliceToken)
        #expect((typedFraction.json.code ?? typedFraction.json.records.first?.code) == "BAD_REQUEST", "\(typedFraction.text)")
    }
}
