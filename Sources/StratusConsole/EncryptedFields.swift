import StratusModel

/// ENCRYPTED fields in the console: their values are the app's secret (the app encrypts them; Stratus stores them
/// as given), so pages show an "encrypted" marker, exports and JSON leave them out, and forms keep them as they are.
enum EncryptedFields {
    /// The type's encrypted field names.
    static func names(_ type: RecordTypeSchema) -> Set<String> {
        Set(type.userFields.filter(\.type.encrypted).map(\.name))
    }

    /// The record without its encrypted fields' values.
    static func hidden(_ r: StoredRecord, _ type: RecordTypeSchema) -> StoredRecord {
        let names = names(type)
        guard !names.isEmpty else { return r }
        var copy = r
        for n in names { copy.fields.removeValue(forKey: n) }
        return copy
    }

    /// What a page shows instead of an encrypted value.
    static let marker = "encrypted"
}
