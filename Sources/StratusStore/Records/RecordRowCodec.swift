import Foundation
import StratusModel

/// Maps field values to a record type's columns and rows back to records.
enum RecordRowCodec {
    /// Appends the values for all of a field's columns; nil (field absent) fills them with NULL.
    static func appendColumnValues(_ f: CatalogField, _ value: FieldValue?, to out: inout [SQLValue]) {
        guard let value else {
            for _ in 0..<f.columnCount { out.append(.null) }
            return
        }
        if f.isEncoded {
            out.append(.blob(FieldValueCodec.encode(value)))
            switch value {
            case .reference(let r): out.append(.text(r.recordName))
            case .asset(let a): out.append(.text(a.fileChecksum))
            case .location(let l): out.append(.double(l.latitude)); out.append(.double(l.longitude))
            default: for _ in 1..<f.columnCount { out.append(.null) }
            }
            return
        }
        switch value {
        case .string(let s): out.append(.text(s))
        case .int64(let i): out.append(.int64(i))
        case .timestamp(let t): out.append(.double(t.secondsSinceReferenceDate))
        case .double(let d): out.append(.double(d))
        case .bytes(let b): out.append(.blob(b))
        default: out.append(.null)
        }
    }

    /// `SELECT` list for a type: system columns, then the main column of each wanted field.
    static func selectList(_ type: CatalogType, fields: [CatalogField], alias: String = "t") -> String {
        // The cached list serves the type's fields in the type's order only: an export asks for them sorted by name.
        if alias == "t" && fields.count == type.fields.count && !type.selectAllColumns.isEmpty
            && zip(fields, type.fields).allSatisfy({ $0.id == $1.id }) { return type.selectAllColumns }
        return (CatalogType.systemColumns.map { "\(alias).\($0)" } + fields.map { "\(alias).\($0.column)" }).joined(separator: ", ")
    }

    /// The fields `desiredKeys` selects (all when nil); unknown names are ignored, as CloudKit does.
    static func wantedFields(_ type: CatalogType, _ desiredKeys: [String]?) -> [CatalogField] {
        guard let desiredKeys else { return type.fields }
        let wanted = Set(desiredKeys)
        return type.fields.filter { wanted.contains($0.name) }
    }
}
