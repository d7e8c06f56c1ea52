import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// TIMESTAMP values are kept as the `Date` that was saved, bit for bit, on both engines: read back, compared and
/// sorted at full precision, and stores from before (milliseconds since 1970) converted without loss.
@Suite struct TimestampPrecisionTests {
    /// `…269.9655557`, which milliseconds rounded to `…269.966`, and neighbours closer than a millisecond.
    static let fine = Timestamp(secondsSinceReferenceDate: 785_000_269.9655557)
    static let finer = Timestamp(secondsSinceReferenceDate: 785_000_269.9655557.nextUp)
    static let earlier = Timestamp(secondsSinceReferenceDate: 785_000_269.9651)

    @Test(arguments: Backend.allCases)
    func aTimestampComesBackAsItWasSavedAndComparesAtFullPrecision(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f in
            let list = FieldValue.list(.timestamp, [.timestamp(Self.earlier), .timestamp(Self.fine)])
            try f.save([
                note("a", ["at": .timestamp(Self.fine), "ats": list]),
                note("b", ["at": .timestamp(Self.finer)]),
                note("c", ["at": .timestamp(Self.earlier)]),
                note("d", ["at": .timestamp(millis: 1_700_000_000_123)]),
            ])
            let a = try f.dev.records.lookup(["a"], in: f.pub)[0].get()
            #expect(a.fields["at"] == .timestamp(Self.fine))
            #expect(a.fields["ats"] == list)
            // Equality finds the one record; order tells apart values a millisecond would have merged.
            func names(_ filters: [QueryFilter], ascending: Bool = true) throws -> [String] {
                try f.dev.records.query(Query(recordType: "Note", filters: filters, sorts: [QuerySort(.field("at"), ascending: ascending)]), in: f.pub).records.map(\.recordName)
            }
            #expect(try names([QueryFilter(.field("at"), .equals, .timestamp(Self.fine))]) == ["a"])
            // d (2023) < c < a < b, the last three within a millisecond.
            #expect(try names([QueryFilter(.field("at"), .greaterThan, .timestamp(Self.fine))]) == ["b"])
            #expect(try names([QueryFilter(.field("at"), .lessThan, .timestamp(Self.fine))]) == ["d", "c"])
            #expect(try names([QueryFilter(.field("at"), .greaterThanOrEquals, .timestamp(Self.earlier))]) == ["c", "a", "b"])
            #expect(try names([], ascending: false) == ["b", "a", "c", "d"])
            #expect(try names([QueryFilter(.field("ats"), .listContains, .timestamp(Self.earlier))]) == ["a"])
            // A Web Services client's milliseconds still find the whole-millisecond value.
            #expect(try names([QueryFilter(.field("at"), .equals, .int64(1_700_000_000_123))]) == ["d"])
            // What a change feed and a query page hand on: the same bits.
            let changes = try f.dev.zones.zoneChanges(in: f.pub, zoneID: .defaultZone, since: nil)
            #expect(changes.changed.first { $0.recordName == "b" }?.fields["at"] == .timestamp(Self.finer))
        }
    }

    /// A data directory (or PostgreSQL database) written before v21 holds milliseconds since 1970 as integers:
    /// opening it converts every TIMESTAMP column and indexed list, and each value reads back as the same
    /// milliseconds, queries included.
    @Test(arguments: Backend.allCases)
    func millisecondsFromBeforeConvertWithoutLoss(_ backend: Backend) async throws {
        try await offPool {
            guard let f = try Fixture.make(backend, schema: """
                DEFINE SCHEMA RECORD TYPE Event (
                    "___recordID" REFERENCE QUERYABLE,
                    at TIMESTAMP QUERYABLE SORTABLE,
                    days LIST<TIMESTAMP> QUERYABLE,
                    GRANT WRITE TO "_creator", GRANT READ TO "_world"
                );
                """) else { return }
            let millis: [Int64] = [0, 1, -1, 978_307_200_000, 1_732_771_269_966, -62_135_596_800_000, 253_402_300_799_999]
            let records = millis.enumerated().map { i, ms in
                StoredRecord(recordName: "e\(i)", recordType: "Event", fields: ["at": .timestamp(millis: ms), "days": .list(.timestamp, [.timestamp(millis: ms), .timestamp(millis: ms + 86_400_000)])])
            }
            try f.save(records)
            // Put the columns back as the previous release wrote them.
            let catalog = try f.dev.core.database.read { s in
                try s.all("SELECT id, type_id, is_list FROM fields WHERE scalar = 'TIMESTAMP'") { r in (r.int64(0)!, r.int64(1)!, r.int64(2)! != 0) }
            }
            try f.dev.core.database.write { s in
                for (id, type, isList) in catalog {
                    let (table, column) = isList ? ("t\(type)_f\(id)_l", "value") : ("t\(type)", "f\(id)")
                    let millis = "CAST(round(\(column) * 1000) AS BIGINT) + 978307200000"
                    switch s.dialect {
                    case .sqlite: try s.execute("UPDATE \(table) SET \(column) = \(millis)", [])
                    case .postgres: try s.script("ALTER TABLE \(table) ALTER COLUMN \(column) TYPE BIGINT USING \(millis)")
                    }
                }
                try Fixture.forgetMigration("v21-timestamp-seconds", s)
            }
            let reopened = try f.reopen()
            defer { reopened.store.close() }
            let env = reopened.dev
            for (i, ms) in millis.enumerated() {
                let r = try env.records.lookup(["e\(i)"], in: f.pub)[0].get()
                guard case .timestamp(let t)? = r.fields["at"] else { Issue.record("e\(i) has no timestamp"); continue }
                #expect(t.millisSince1970 == ms, "e\(i) on \(backend)")
                #expect(r.fields["days"] == .list(.timestamp, [.timestamp(millis: ms), .timestamp(millis: ms + 86_400_000)]))
                let found = try env.records.query(Query(recordType: "Event", filters: [QueryFilter(.field("at"), .equals, .timestamp(millis: ms))]), in: f.pub).records
                #expect(found.map(\.recordName) == ["e\(i)"])
                let byDay = try env.records.query(Query(recordType: "Event", filters: [QueryFilter(.field("days"), .listContains, .timestamp(millis: ms + 86_400_000))]), in: f.pub).records
                #expect(byDay.map(\.recordName) == ["e\(i)"])
            }
            let sorted = try env.records.query(Query(recordType: "Event", sorts: [QuerySort(.field("at"))]), in: f.pub).records.map(\.recordName)
            #expect(sorted == millis.enumerated().sorted { $0.element < $1.element }.map { "e\($0.offset)" })
        }
    }

    /// Codec bytes written before v21 (a list's values) tagged TIMESTAMPs as milliseconds; they still read so.
    @Test func codecBytesFromBeforeReadAsMilliseconds() throws {
        // list of one TIMESTAMP: tag 9, element type, count 1, then tag 5 and 1_700_000_000_123 zigzagged.
        var bytes: [UInt8] = [9, UInt8(ScalarType.allCases.firstIndex(of: .timestamp)! + 1), 1, 5]
        var v = UInt64(bitPattern: (Int64(1_700_000_000_123) << 1) ^ (Int64(1_700_000_000_123) >> 63))
        while v >= 0x80 { bytes.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        bytes.append(UInt8(v))
        #expect(try FieldValueCodec.decode(Data(bytes)) == .list(.timestamp, [.timestamp(millis: 1_700_000_000_123)]))
        // And what is written now keeps the bits.
        #expect(try FieldValueCodec.decode(FieldValueCodec.encode(.timestamp(Self.fine))) == .timestamp(Self.fine))
    }

    @Test func millisecondsConvertBothWaysExactly() {
        for ms: Int64 in [0, 1, -1, 999, 1_732_771_269_966, Timestamp.validMillis.lowerBound, Timestamp.validMillis.upperBound, -62_135_596_800_000] {
            #expect(Timestamp(millisSince1970: ms).millisSince1970 == ms, "\(ms)")
            #expect(Timestamp(millisSince1970: ms).isWholeMillisecond)
        }
        var rng = SeededGenerator(seed: 21)
        let misses = (0..<200_000).filter { _ in
            let ms = Int64.random(in: Timestamp.validMillis, using: &rng)
            return Timestamp(millisSince1970: ms).millisSince1970 != ms
        }
        #expect(misses.isEmpty)
        #expect(!Self.fine.isWholeMillisecond)
        #expect(Self.fine.millisSince1970 == 1_763_307_469_966)
        // Out of range converts without trapping.
        #expect(Timestamp(secondsSinceReferenceDate: .greatestFiniteMagnitude).millisSince1970 > 0)
        #expect(!Timestamp(secondsSinceReferenceDate: .infinity).isValid)
        #expect(Timestamp(millisSince1970: .min).millisSince1970 < 0)
    }
}
