import Foundation
import StratusPostgres
import StratusTestSupport
import Testing
@testable import StratusModel
@testable import StratusStore

/// `COPY … (FORMAT binary)`, which backups, restores and migrations move PostgreSQL's tables with: every value a
/// Stratus column can hold comes back as it went in, whatever the chunks libpq hands over, and a value a column
/// cannot hold is refused with nothing written.
@Suite struct PostgresCopyTests {
    static let columns = ["id", "n", "x", "s", "b"]
    static let kinds: [PostgresCopy.Kind] = [.int8, .int8, .float8, .text, .bytea]

    /// Edge values of every kind, NULLs, text that text formats must escape, and a blob past the send buffer.
    static var rows: [[SQLValue]] {
        let texts = ["", "tab\there", "line\nbreak\r\n", #"back\slash \N"#, "é\u{301} 👩‍👩‍👧", String(repeating: "long ", count: 20_000)]
        let numbers: [Int64] = [0, -1, .min, .max, 42]
        let doubles: [Double] = [0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1]
        var out: [[SQLValue]] = []
        for i in 0..<40 {
            let blob: SQLValue = i == 3 ? .blob(Data((0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })) : i % 5 == 0 ? .null : .blob(Data([0, 9, 10, 92, UInt8(i)]))
            out.append([.int64(Int64(i)), i % 7 == 0 ? .null : .int64(numbers[i % numbers.count]), .double(doubles[i % doubles.count]),
                        i % 6 == 5 ? .null : .text(texts[i % texts.count]), blob])
        }
        return out
    }

    @Test func everyKindOfValueComesBackAsItWentIn() throws {
        guard let (url, drop) = try TestPostgres.freshDatabaseBlocking() else { #expect(!TestPostgres.required); return }
        defer { drop() }
        let pool = PostgresPool(url: url, capacity: 2)
        let db = PostgresDatabase(pool: pool, schema: "public")
        try db.write { s in try s.execute("CREATE TABLE t(id BIGINT PRIMARY KEY, n BIGINT, x DOUBLE PRECISION, s TEXT, b BYTEA)", []) }
        let rows = Self.rows
        try db.write { s in
            let pg = try #require(s as? PostgresSession)
            #expect(try PostgresCopy.kinds("t", Self.columns, pg) == Self.kinds)
            try PostgresCopy.write("t", Self.columns, Self.kinds, pg) { add in for r in rows { try add(r) } }
        }
        var back: [[SQLValue]] = []
        try db.read { s in try PostgresCopy.read("t", Self.columns, Self.kinds, s as! PostgresSession) { back.append($0) } }
        func id(_ r: [SQLValue]) -> Int64 { if case .int64(let i) = r[0] { i } else { -1 } }
        #expect(back.sorted { id($0) < id($1) } == rows)
        // What plain statements read agrees with what COPY wrote.
        let viaSelect = try db.read { s in try s.all("SELECT s FROM t WHERE id = 1", []) { $0.string(0) } }
        #expect(viaSelect == ["tab\there"])

        // A value the column cannot hold: refused, and the copy leaves nothing behind.
        try db.write { s in try s.execute("DELETE FROM t", []) }
        #expect(throws: StratusError.self) {
            try db.write { s in
                try PostgresCopy.write("t", Self.columns, Self.kinds, s as! PostgresSession) { add in
                    try add([.int64(1), .int64(1), .double(1), .text("ok"), .null])
                    try add([.int64(2), .text("not a number"), .double(1), .text("ok"), .null])
                }
            }
        }
        #expect(try db.read { s in try s.all("SELECT id FROM t", []) { $0.int64(0) } }.isEmpty)
    }

    /// libpq hands a copy over in messages of its own size: the parser reads the same rows from any split.
    @Test func theBinaryParserReadsAnySplitOfTheStream() throws {
        var stream: [UInt8] = PostgresCopy.signature + [0, 0, 0, 0, 0, 0, 0, 0]
        let rows: [[SQLValue]] = [[.int64(7), .null, .double(2.5), .text("a\tb"), .blob(Data([1, 2]))], [.int64(-1), .int64(.max), .double(-0.0), .text(""), .null]]
        for r in rows {
            stream += [0, 5]
            for v in r {
                switch v {
                case .null: stream += [0xFF, 0xFF, 0xFF, 0xFF]
                case .int64(let n): stream += [0, 0, 0, 8]; withUnsafeBytes(of: n.bigEndian) { stream += $0 }
                case .double(let d): stream += [0, 0, 0, 8]; withUnsafeBytes(of: d.bitPattern.bigEndian) { stream += $0 }
                case .text(let t): withUnsafeBytes(of: Int32(t.utf8.count).bigEndian) { stream += $0 }; stream += t.utf8
                case .blob(let b): withUnsafeBytes(of: Int32(b.count).bigEndian) { stream += $0 }; stream += b
                }
            }
        }
        stream += [0xFF, 0xFF]
        for size in [1, 2, 3, 7, 19, 64, stream.count] {
            var parser = PostgresCopy.BinaryRows(kinds: Self.kinds)
            var got: [[SQLValue]] = []
            var at = 0
            while at < stream.count {
                let piece = Array(stream[at..<min(at + size, stream.count)])
                try piece.withUnsafeBytes { try parser.feed($0) { got.append($0) } }
                at += size
            }
            #expect(got == rows && parser.ended, "pieces of \(size) bytes")
        }
    }
}
