import Foundation
import StratusModel
import StratusPostgres

/// Whole tables in and out of PostgreSQL with `COPY … (FORMAT binary)`: what a backup, a restore and a migration
/// move, as a stream of rows instead of a result per row or a bound statement per few hundred rows. Values travel
/// in each column's binary form, so every column's type must be one of Stratus's four (`Kind`); `kinds` says nil
/// for a table with any other, which is then copied row by row.
enum PostgresCopy {
    /// The column types Stratus's tables use on PostgreSQL (`SQLDialect.ddl`).
    enum Kind { case int8, float8, text, bytea }

    /// The kinds of `columns` of `table` in the session's schema; nil when one is of another type.
    static func kinds(_ table: String, _ columns: [String], _ s: PostgresSession) throws -> [Kind]? {
        var types: [String: String] = [:]
        try s.each("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?", [.text(table)]) { r in
            types[r.string(0) ?? ""] = r.string(1)
        }
        var kinds: [Kind] = []
        for c in columns {
            switch types[c] {
            case "bigint": kinds.append(.int8)
            case "double precision": kinds.append(.float8)
            case "text": kinds.append(.text)
            case "bytea": kinds.append(.bytea)
            default: return nil
            }
        }
        return kinds
    }

    static let signature: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]

    /// Streams every row of `table` (its `columns`, of `kinds`) to `row`.
    static func read(_ table: String, _ columns: [String], _ kinds: [Kind], _ s: PostgresSession,
                     _ row: ([SQLValue]) throws -> Void) throws {
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        var parser = BinaryRows(kinds: kinds)
        try s.connection.copyOut("COPY (SELECT \(list) FROM \(table)) TO STDOUT (FORMAT binary)") { chunk in
            try parser.feed(chunk, row)
        }
        guard parser.ended else { throw StratusError(.internalError, "the copy of \(table) ended early") }
    }

    /// Writes `rows` into `table` (its `columns`, of `kinds`): `rows` calls the function it is given once per row.
    static func write(_ table: String, _ columns: [String], _ kinds: [Kind], _ t: PostgresSession,
                      _ rows: (_ add: ([SQLValue]) throws -> Void) throws -> Void) throws {
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        try t.connection.copyIn("COPY \(table)(\(list)) FROM STDIN (FORMAT binary)") { w in
            w.bytes += signature + [0, 0, 0, 0, 0, 0, 0, 0]
            try rows { values in
                append(UInt16(values.count), to: &w.bytes)
                for (i, v) in values.enumerated() { try encode(v, as: kinds[i], column: columns[i], of: table,
                                                               into: &w.bytes) }
                try w.sendIfFull()
            }
            w.bytes += [0xFF, 0xFF]
        }
    }

    private static func append<I: FixedWidthInteger>(_ i: I, to out: inout [UInt8]) {
        withUnsafeBytes(of: i.bigEndian) { out.append(contentsOf: $0) }
    }

    /// One value in its column's binary form, converted where the column's type asks (a whole number into a DOUBLE
    /// PRECISION column, as an INSERT would cast it); anything else is refused, naming the column.
    private static func encode(_ v: SQLValue, as kind: Kind, column: String, of table: String,
                               into out: inout [UInt8]) throws {
        func refuse() -> StratusError { StratusError(.internalError, "\(table).\(column) cannot hold \(v)") }
        func bytes(_ b: some Collection<UInt8>) { append(Int32(b.count), to: &out); out.append(contentsOf: b) }
        switch (v, kind) {
        case (.null, _): append(Int32(-1), to: &out)
        case (.int64(let i), .int8): append(Int32(8), to: &out); append(i, to: &out)
        case (.double(let d), .int8):
            guard d == d.rounded(), abs(d) < 9.2e18 else { throw refuse() }
            append(Int32(8), to: &out); append(Int64(d), to: &out)
        case (.double(let d), .float8): append(Int32(8), to: &out); append(d.bitPattern, to: &out)
        case (.int64(let i), .float8): append(Int32(8), to: &out); append(Double(i).bitPattern, to: &out)
        case (.text(let s), .text): bytes(s.utf8)
        case (.int64(let i), .text): bytes(String(i).utf8)
        case (.blob(let b), .bytea): bytes(b)
        case (.text(let s), .bytea): bytes(s.utf8)
        case (.text(let s), .int8):
            guard let i = Int64(s) else { throw refuse() }
            append(Int32(8), to: &out); append(i, to: &out)
        case (.text(let s), .float8):
            guard let d = Double(s) else { throw refuse() }
            append(Int32(8), to: &out); append(d.bitPattern, to: &out)
        default: throw refuse()
        }
    }

    /// Reads a binary copy's rows from the chunks libpq hands over, whatever their boundaries.
    struct BinaryRows {
        let kinds: [Kind]
        private var carry: [UInt8] = []
        private var headerRead = false
        private(set) var ended = false

        init(kinds: [Kind]) { self.kinds = kinds }

        mutating func feed(_ chunk: UnsafeRawBufferPointer, _ row: ([SQLValue]) throws -> Void) throws {
            if carry.isEmpty {
                let used = try parse(chunk, row)
                if used < chunk.count { carry.append(contentsOf: chunk[used...]) }
            } else {
                carry.append(contentsOf: chunk)
                let all = carry
                let used = try all.withUnsafeBytes { try parse($0, row) }
                carry.removeFirst(used)
            }
        }

        /// Parses whole rows from `b`; returns how many bytes it used (a partial row is left for the next chunk).
        private mutating func parse(_ b: UnsafeRawBufferPointer, _ row: ([SQLValue]) throws -> Void) throws -> Int {
            var at = 0
            func int<I: FixedWidthInteger>(_: I.Type, _ offset: Int) -> I {
                var v: I = 0
                withUnsafeMutableBytes(of: &v) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: b[offset..<offset + MemoryLayout<I>.size])) }
                return I(bigEndian: v)
            }
            if !headerRead {
                guard b.count >= 19 else { return 0 }
                guard signature.indices.allSatisfy({ b[$0] == signature[$0] }) else { throw StratusError(.internalError,
                        "not a binary copy") }
                let extensionLength = Int(int(UInt32.self, 15))
                guard b.count >= 19 + extensionLength else { return 0 }
                at = 19 + extensionLength
                headerRead = true
            }
            var values: [SQLValue] = []
            values.reserveCapacity(kinds.count)
            rows: while at + 2 <= b.count, !ended {
                let fields = Int16(bitPattern: int(UInt16.self, at))
                if fields == -1 { ended = true; at += 2; break }
                guard Int(fields) == kinds.count else { throw StratusError(.internalError,
                        "a copied row has \(fields) fields, not \(kinds.count)") }
                var p = at + 2
                values.removeAll(keepingCapacity: true)
                for kind in kinds {
                    guard p + 4 <= b.count else { break rows }
                    let length = Int(Int32(bitPattern: int(UInt32.self, p)))
                    p += 4
                    if length < 0 { values.append(.null); continue }
                    guard p + length <= b.count else { break rows }
                    switch kind {
                    case .int8: values.append(.int64(Int64(bitPattern: int(UInt64.self, p))))
                    case .float8: values.append(.double(Double(bitPattern: int(UInt64.self, p))))
                    case .text: values.append(.text(String(decoding: UnsafeRawBufferPointer(rebasing: b[p..<p + length]), as: UTF8.self)))
                    case .bytea: values.append(.blob(Data(UnsafeRawBufferPointer(rebasing: b[p..<p + length]))))
                    }
                    p += length
                }
                try row(values)
                at = p
            }
            return at
        }
    }
}
