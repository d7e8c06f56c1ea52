import Foundation

/// What a saved value becomes in its field: CloudKit widens an INT64 to a DOUBLE or a TIMESTAMP field, and clients
/// that send no types (CloudKit JS's numbers, base64 text) are read as the field's type; anything else must already
/// be of it.
public enum ValueCoercion {
    /// The value as its field stores it, or nil when it is stored as sent (most are): the caller then leaves the
    /// record's fields as they are, where writing each value back copied the whole dictionary per record. Throws
    /// BAD_REQUEST, naming `recordName`, for a value the field cannot hold.
    public static func coercion(_ value: FieldValue, to type: FieldType, field: String,
                                recordName: String) throws(StratusError) -> FieldValue? {
        // Most values already are of their field's type (a list's elements included): only checked.
        if value.isList == type.isList, value.scalarType == type.scalar {
            try validate(value, as: type, field: field, recordName: recordName)
            return nil
        }
        var v: FieldValue? = nil
        switch (value, type.isList, type.scalar) {
        case (.int64(let i), false, .double): v = .double(Double(i))
        case (.int64(let i), false, .timestamp): v = .timestamp(Timestamp(millisSince1970: i))
        // Clients that send no type send a TIMESTAMP as a JavaScript number, fraction and all: whole milliseconds.
        case (.double(let d), false, .timestamp) where d.isFinite && abs(d) < 9.2e18:
            v = .timestamp(Timestamp(millisSince1970: Int64(d.rounded(.towardZero))))
        // … and BYTES as their base64 text.
        case (.string(let text), false, .bytes):
            guard let data = Data(base64Encoded: text) else {
                throw StratusError(.badRequest, "field '\(field)' is BYTES and needs base64 text",
                                   recordName: recordName)
            }
            v = .bytes(data)
        case (.list(let et, let items), true, _) where et != type.scalar:
            var converted: [FieldValue] = []
            converted.reserveCapacity(items.count)
            for item in items { converted.append(try coercion(item, to: FieldType(type.scalar), field: field,
                                                              recordName: recordName) ?? item) }
            v = .list(type.scalar, converted)
        case (.list(nil, let items), true, _): v = .list(type.scalar, items)
        default: break
        }
        try validate(v ?? value, as: type, field: field, recordName: recordName)
        return v
    }

    private static func validate(_ value: FieldValue, as type: FieldType, field: String,
                                 recordName: String) throws(StratusError) {
        do { try value.validate(as: type, field: field) } catch {
            var e = error
            e.recordName = recordName
            throw e
        }
    }
}
