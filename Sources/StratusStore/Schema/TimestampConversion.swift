import Foundation
import StratusModel

/// Migration v21's work: TIMESTAMP fields hold a `Date`'s own seconds since 2001 (see `Timestamp`) instead of
/// milliseconds since 1970, in the type tables' columns and in the side tables of indexed lists. Each millisecond
/// value converts exactly, and converts back to the same milliseconds for clients that read them.
///
/// Codec bytes (lists, the values inside continuation markers) are not rewritten: their old tag still reads as
/// milliseconds. On SQLite a column keeps the INTEGER type it was declared with (SQLite cannot change it; a whole
/// number of seconds is then stored as an integer, read back as the same `Double`); SQLite's automatic indexes
/// follow the update through their triggers. On PostgreSQL the column becomes DOUBLE PRECISION and its indexes are
/// rebuilt with it.
enum TimestampConversion {
    static func run(_ s: any SQLSession) throws {
        let columns = Selection<SchemaStorage.FieldColumn>([.id, .typeID, .isList])
        let fields = try s.all("SELECT \(columns.sql) FROM fields WHERE scalar = 'TIMESTAMP'") { r in
            let row = NamedRow(r, columns)
            return (id: row.int64(.id) ?? 0, type: row.int64(.typeID) ?? 0, isList: (row.int64(.isList) ?? 0) != 0)
        }
        for f in fields {
            if f.isList {
                try convert(table: "t\(f.type)_f\(f.id)_l", column: "value", s)
            } else {
                try convert(table: "t\(f.type)", column: "f\(f.id)", s)
            }
        }
    }

    private static func convert(table: String, column: String, _ s: any SQLSession) throws {
        guard try s.tableExists(table) else { return }
        let seconds = "(\(column) - \(Timestamp.referenceDateMillis)) / 1000.0"
        switch s.dialect {
        case .sqlite:
            // A list side table's key is (value, record_id): two keys that met after the conversion are one.
            try s.execute("UPDATE OR REPLACE \(table) SET \(column) = \(seconds)", [])
        case .postgres:
            try s.script("ALTER TABLE \(table) ALTER COLUMN \(column) TYPE DOUBLE PRECISION USING \(seconds)")
        }
    }
}
