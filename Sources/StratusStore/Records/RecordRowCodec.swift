import Foundation
import GRDB
import StratusModel

/// Maps field values to a record type's columns and rows back to records.
enum RecordRowCodec {
    /// Appends the values for all of a field's columns; nil (field absent) fills them with NULL.
    static func appendColumnValues(_ f: CatalogField, _ value: FieldValue?, to out: inout [DatabaseValue]) {
        guard let value else {
            for _ in 0..<f.columnCount { out.append(.null) }
            return
        }
        if f.isEncoded {
            out.append(FieldValueCodec.encode(value).databaseValue)
            switch value {
            case .reference(let r): out.append(r.recordName.databaseValue)
            case .asset(let a): out.append(a.fileChecksum.databaseValue)
            case .location(let l): out.append(l.latitude.databaseValue); out.append(l.longitude.databaseValue)
            default: for _ in 1..<f.columnCount { out.append(.null) }
            }
            return
        }
        switch value {
        case .string(let s): out.append(s.databaseValue)
        case .int64(let i), .timestamp(let i): out.append(i.databaseValue)
        case .double(let d): out.append(d.databaseValue)
        case .bytes(let b): out.append(b.databaseValue)
        default: out.append(.null)
        }
    }

    static func decodeField(_ f: CatalogField, _ v: DatabaseValue) throws(StratusError) -> FieldValue? {
        switch v.storage {
        case .null: return nil
        case .blob(let d):
            if f.isEncoded { return try FieldValueCodec.decode(d) }
            return .bytes(d)
        case .int64(let i): return f.type.scalar == .timestamp ? .timestamp(i) : f.type.scalar == .double ? .double(Double(i)) : .int64(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        }
    }

    /// `SELECT` list for a type: system columns, then the main column of each wanted field.
    static func selectList(_ type: CatalogType, fields: [CatalogField], alias: String = "t") -> String {
        (CatalogType.systemColumns.map { "\(alias).\($0)" } + fields.map { "\(alias).\($0.column)" }).joined(separator: ", ")
    }

    /// Decodes a row selected with `selectList`. Returns the internal id beside the record.
    static func decode(_ row: Row, type: CatalogType, fields: [CatalogField], zones: (Int64) -> ZoneID) throws(StratusError) -> (id: Int64, record: StoredRecord) {
        let id: Int64 = row[0]
        var record = StoredRecord(recordName: row[2], recordType: type.name, zoneID: zones(row[1]), recordChangeTag: row[3])
        record.created = RecordStamp(timestamp: row[4], userRecordName: row[5], deviceID: row[6])
        record.modified = RecordStamp(timestamp: row[7], userRecordName: row[8], deviceID: row[9])
        var values: [String: FieldValue] = [:]
        values.reserveCapacity(fields.count)
        let base = CatalogType.systemColumns.count
        for (i, f) in fields.enumerated() {
            if let v = try value(row, base + i, f) { values[f.name] = v }
        }
        record.fields = values
        return (id, record)
    }

    /// One field's value from its main column (nil when absent). Typed reads straight from the statement:
    /// no intermediate DatabaseValue, no copy of codec bytes.
    @inline(__always)
    static func value(_ row: Row, _ index: Int, _ f: CatalogField) throws(StratusError) -> FieldValue? {
        if row.hasNull(atIndex: index) { return nil }
        if f.isEncoded {
            let decoded: FieldValue? = try? row.withUnsafeData(atIndex: index) { data in try data.map(FieldValueCodec.decode) }
            guard let decoded else { throw StratusError(.internalError, "stored value of field '\(f.name)' is corrupt") }
            return decoded
        }
        switch f.type.scalar {
        case .string: return .string(row[index])
        case .int64: return .int64(row[index])
        case .timestamp: return .timestamp(row[index])
        case .double: return .double(row[index])
        case .bytes: return .bytes(row[index])
        default: return try decodeField(f, row[index])
        }
    }

    /// The fields `desiredKeys` selects (all when nil); unknown names are ignored, as CloudKit does.
    static func wantedFields(_ type: CatalogType, _ desiredKeys: [String]?) -> [CatalogField] {
        guard let desiredKeys else { return type.fields }
        let wanted = Set(desiredKeys)
        return type.fields.filter { wanted.contains($0.name) }
    }
}
