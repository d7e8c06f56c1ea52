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
        // `fields` is always the type's fields or a subset of them, so the same count means all of them.
        if alias == "t" && fields.count == type.fields.count && !type.selectAllColumns.isEmpty { return type.selectAllColumns }
        return (CatalogType.systemColumns.map { "\(alias).\($0)" } + fields.map { "\(alias).\($0.column)" }).joined(separator: ", ")
    }

    /// The fields `desiredKeys` selects (all when nil); unknown names are ignored, as CloudKit does.
    static func wantedFields(_ type: CatalogType, _ desiredKeys: [String]?) -> [CatalogField] {
        guard let desiredKeys else { return type.fields }
        let wanted = Set(desiredKeys)
        return type.fields.filter { wanted.contains($0.name) }
    }
}
