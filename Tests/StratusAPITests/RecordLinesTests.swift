import Foundation
import Testing
@testable import StratusAPI
import StratusModel

/// `RecordLines.decode` reads a line member by member; it must accept, refuse and explain exactly as reading the
/// parsed line with `WireDecoding.record` does (what `records/modify` does with a request's record).
@Suite struct RecordLinesTests {
    /// The tree path: parse, then read the record from the parsed object.
    static func viaTree(_ line: String) -> Result<StoredRecord, StratusError> {
        Result { () throws(StratusError) in
            let json: JSON
            do { json = try JSONParser.parse(Data(line.utf8)) } catch { throw .badRequest("the line is not JSON") }
            guard json.object != nil else { throw .badRequest("the line is not a record object") }
            let zone = try WireDecoding.zoneID(json["zoneID"])
            var r = try WireDecoding.record(json, defaultZone: ZoneID(zoneName: zone.zoneName))
            guard !r.recordName.isEmpty else { throw .badRequest("the record has no recordName") }
            guard !r.recordType.isEmpty else { throw .badRequest("the record has no recordType") }
            r.recordChangeTag = nil
            return r
        }
    }

    static func direct(_ line: String) -> Result<StoredRecord, StratusError> {
        Result { () throws(StratusError) in try RecordLines.decode(Data(line.utf8)) }
    }

    static let lines: [String] = [
        // What export writes, every kind of value.
        #"{"recordName":"a","recordType":"T","recordChangeTag":"x1","fields":{"s":{"value":"hé \"q\"","type":"STRING"},"i":{"value":7,"type":"INT64"},"d":{"value":2.5,"type":"DOUBLE"},"t":{"value":1700000000000,"type":"TIMESTAMP"},"b":{"value":"AAE=","type":"BYTES"},"l":{"value":{"latitude":1.5,"longitude":-2,"altitude":3},"type":"LOCATION"},"r":{"value":{"recordName":"b","action":"DELETE_SELF"},"type":"REFERENCE"},"ls":{"value":["x","y"],"type":"STRING_LIST"},"ln":{"value":[1,2],"type":"INT64_LIST"},"e":{"value":[],"type":"UNKNOWN_LIST"}},"created":{"timestamp":1,"userRecordName":"_u","deviceID":"d"},"modified":{"timestamp":2,"userRecordName":"_u","deviceID":"d"},"zoneID":{"zoneName":"Z","ownerRecordName":"_o"},"parent":{"recordName":"p"}}"#,
        // Untyped values, white space, members in another order, repeated members (the last one counts).
        #"  { "fields" : { "n" : { "value" : 1 } , "f": {"value": [1, 2.5]} }, "recordType" : "T", "recordName" : "b", "parent": null, "recordName": "c" }  "#,
        #"{"recordName":"a","recordType":"T","fields":{"n":{"value":"bad","type":"INT64"}},"fields":{"n":{"value":1}}}"#,
        #"{"recordName":"a","recordType":"T","fields":null}"#,
        #"{"recordName":"a","recordType":"T","fields":{}}"#,
        #"{"recordName":"a","recordType":"T","extra":{"deep":[1,{"x":[true,false,null]}]}}"#,
        // Refused.
        #"{"recordName":"a","recordType":"T","fields":{"n":{"value":1}},}"#,
        #"{"recordName":"a","recordType":"T","fields":{"n":{"value":1},}}"#,
        #"{"recordName":"a","recordType":"T","fields":{"n":{"value":1}}"#,
        #"{"recordName":"a","recordType":"T"} x"#,
        #"{"recordName":"a","recordType":"T","created":{"timestamp":01}}"#,
        #"{"recordName":"a","recordType":"T","fields":{"n":{"value":"\ud800"}}}"#,
        #"[1,2]"#, #""text""#, "", "{", "{}",
        #"{"recordName":"a"}"#, #"{"recordType":"T"}"#, #"{"recordName":7,"recordType":"T"}"#,
        #"{"recordName":"a","recordType":"T","recordChangeTag":5}"#,
        #"{"recordName":"a","recordType":"T","fields":[1]}"#,
        #"{"recordName":"a","recordType":"T","fields":{"n":5}}"#,
        #"{"recordName":"a","recordType":"T","fields":{"n":{"type":"INT64"}}}"#,
        #"{"recordName":"a","recordType":"T","fields":{"n":{"value":true}}}"#,
        #"{"recordName":"a","recordType":"T","fields":{"n":{"value":1,"type":"NOPE"}}}"#,
        #"{"recordName":"a","recordType":"T","zoneID":{"zoneName":""}}"#,
        #"{"recordName":"a","recordType":"T","zoneID":"Z"}"#,
        #"{"recordName":"a","recordType":"T","parent":{"recordName":""}}"#,
        #"{"recordName":"a","recordType":"T","fields":{"n":{"value":1}},"zoneID":7}"#,
    ]

    @Test func decodesAndRefusesAsTheParsedTreeDoes() {
        for line in Self.lines {
            switch (Self.direct(line), Self.viaTree(line)) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(line)")
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(line): \(a.reason) vs \(b.reason)")
            case (let a, let b):
                Issue.record("\(line): \(a) vs \(b)")
            }
        }
    }

    @Test func aRecordRoundTripsThroughItsLine() throws {
        var r = StoredRecord(recordName: "r1", recordType: "Note", zoneID: ZoneID(zoneName: "Z"),
                             fields: ["title": .string("hello"), "n": .int64(3), "at": .location(Location(latitude: 1, longitude: 2)),
                                      "tags": .list(.string, [.string("a"), .string("b")])])
        r.parent = "root"
        let back = try RecordLines.decode(Data(RecordLines.encode(r)))
        #expect(back.recordName == "r1" && back.recordType == "Note" && back.zoneID.zoneName == "Z" && back.parent == "root")
        #expect(back.fields == r.fields)
    }
}
