import Foundation
import GRDB
import GRDBSQLite
import StratusModel

/// Hands the rows of a record-type `SELECT` (system columns, then `fields`' main columns) to a `RecordSink`,
/// reading each column straight from SQLite's current row: no GRDB `Row` access, no `Data` wrapper around
/// codec bytes, and the per-field decisions made once per statement instead of once per value. This is the
/// inner loop of query pages and change feeds (`records/query`, `changes/zone`).
struct RowStreamer {
    private enum Kind { case string, int64, timestamp, double, bytes, encoded }
    private let names: [String]
    private let kinds: [Kind]
    private let recordType: String

    init(type: CatalogType, fields: [CatalogField]) {
        recordType = type.name
        names = fields.map(\.name)
        kinds = fields.map { f in
            if f.isEncoded { return .encoded }
            switch f.type.scalar {
            case .string: return .string
            case .int64: return .int64
            case .timestamp: return .timestamp
            case .double: return .double
            default: return .bytes
            }
        }
    }

    /// Streams the statement's current row.
    /// `linkColumn`: where the statement's `parent` and `share` columns start (see `QueryCompiler.links`), if it has them.
    func stream(_ statement: Statement, zoneID: ZoneID, linkColumn: Int32? = nil, into sink: inout some RecordSink) throws(StratusError) {
        let s = statement.sqliteStatement
        sink.beginRecord(borrowing: BorrowedRecordHeader(
            recordName: Self.utf8(s, 2), recordType: recordType, zoneID: zoneID, recordChangeTag: Self.utf8(s, 3),
            createdTimestamp: sqlite3_column_int64(s, 4), createdBy: Self.utf8(s, 5), createdDevice: Self.utf8(s, 6),
            modifiedTimestamp: sqlite3_column_int64(s, 7), modifiedBy: Self.utf8(s, 8), modifiedDevice: Self.utf8(s, 9)))
        var column = Int32(CatalogType.systemColumns.count)
        for i in kinds.indices {
            defer { column += 1 }
            guard sqlite3_column_type(s, column) != SQLITE_NULL else { continue }
            let value: FieldValue
            switch kinds[i] {
            case .string:
                sink.field(names[i], utf8: Self.utf8(s, column))
                continue
            case .int64: value = .int64(sqlite3_column_int64(s, column))
            case .timestamp: value = .timestamp(sqlite3_column_int64(s, column))
            case .double: value = .double(sqlite3_column_double(s, column))
            case .bytes: value = .bytes(Data(Self.blob(s, column)))
            case .encoded:
                guard let v = FieldValueCodec.decode(Self.blob(s, column)) else {
                    throw StratusError(.internalError, "stored value of field '\(names[i])' is corrupt")
                }
                value = v
            }
            sink.field(names[i], value)
        }
        if let c = linkColumn, sqlite3_column_type(s, c) != SQLITE_NULL || sqlite3_column_type(s, c + 1) != SQLITE_NULL {
            func text(_ i: Int32) -> String? { sqlite3_column_type(s, i) == SQLITE_NULL ? nil : String(decoding: Self.utf8(s, i), as: UTF8.self) }
            sink.links(parent: text(c), share: text(c + 1))
        }
        sink.endRecord()
    }

    /// The column's text, valid until the statement steps again.
    @inline(__always) private static func utf8(_ s: SQLiteStatement, _ column: Int32) -> UnsafeBufferPointer<UInt8> {
        let p = sqlite3_column_text(s, column)
        return UnsafeBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(s, column)))
    }

    /// The column's bytes, valid until the statement steps again.
    @inline(__always) private static func blob(_ s: SQLiteStatement, _ column: Int32) -> UnsafeRawBufferPointer {
        let p = sqlite3_column_blob(s, column)
        return UnsafeRawBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(s, column)))
    }
}
