import Foundation
import GRDB
import StratusModel

/// Maps field values to a record type's columns and rows back to records.
enum RecordRowCodec {
    /// The values for all of a field's columns; nil (field absent) fills them with NULL.
    static func columnValues(_ f: CatalogField, _ value: FieldValue?) -> [DatabaseValue] {
        guard let value else { return Array(repeating: .null, count: f.columns.count) }
        if f.isEncoded {
            let blob = FieldValueCodec.encode(value).databaseValue
            switch value {
            case .reference(let r): return [blob, r.recordName.databaseValue]
            case .asset(let a): return [blob, a.fileChecksum.databaseValue]
            case .location(let l): return [blob, l.latitude.databaseValue, l.longitude.databaseValue]
            default: return [blob]
            }
        }
        switch value {
        case .string(let s): return [s.databaseValue]
        case .int64(let i), .timestamp(let i): return [i.databaseValue]
        case .double(let d): return [d.databaseValue]
        case .bytes(let b): return [b.databaseValue]
        default: return [.null]
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
            let dbv: DatabaseValue = row[base + i]
            if let v = try decodeField(f, dbv) { values[f.name] = v }
        }
        record.fields = values
        return (id, record)
    }

    /// The fields `desiredKeys` selects (all when nil); unknown names are ignored, as CloudKit does.
    static func wantedFields(_ type: CatalogType, _ desiredKeys: [String]?) -> [CatalogField] {
        guard let desiredKeys else { return type.fields }
        let wanted = Set(desiredKeys)
        return type.fields.filter { wanted.contains($0.name) }
    }
}
