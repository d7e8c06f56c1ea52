import Foundation
import StratusModel

/// A share record's fields in the `shares.fields` column: one `FieldValueCodec` list of name, value, name, value…
/// (names sorted, so the same fields are the same bytes), the codec every stored value already goes through.
enum ShareFields {
    /// What a share's fields may hold in all: a record's limit.
    static let maximumBytes = StoredRecord.maximumSize

    static func encode(_ fields: RecordFields) -> Data? {
        guard !fields.isEmpty else { return nil }
        var items: [FieldValue] = []
        for (name, value) in fields { items += [.string(name), value] }
        return FieldValueCodec.encode(.list(nil, items))
    }

    static func decode(_ data: Data?) -> RecordFields {
        guard let data, !data.isEmpty, case .list(_, let items)? = try? FieldValueCodec.decode(data) else { return [:] }
        var out = RecordFields(minimumCapacity: items.count / 2)
        var i = 0
        while i + 1 < items.count {
            if case .string(let name) = items[i] { out[name] = items[i + 1] }
            i += 2
        }
        return out
    }

    /// Bytes the fields count against their owner's storage.
    static func size(_ fields: RecordFields) -> Int64 {
        Int64(fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.storageSize })
    }
}
