/// Validation of the names people choose: record names, record types, fields and roles.
public enum Names {
    /// Record names are opaque strings: 1 to 255 bytes, no control characters.
    public static func validate(recordName: String) throws(StratusError) {
        let bytes = recordName.utf8
        guard !bytes.isEmpty, bytes.count <= 255 else { throw .badRequest("recordName must be 1 to 255 bytes") }
        guard !recordName.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .badRequest("recordName must not contain control characters")
        }
        // A browser rewrites `.` and `..` in a URL path, so such a record could never be opened in the console.
        guard recordName != ".", recordName != ".." else { throw .badRequest("recordName cannot be '.' or '..'") }
    }

    /// Record types, fields and roles: `[A-Za-z][A-Za-z0-9_]*`, at most 255 characters.
    public static func isIdentifier(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard let first = b.first, first.isASCIILetter, b.count <= 255 else { return false }
        return b.allSatisfy { $0.isIdentifierByte }
    }

    public static func validate(recordType: String) throws(StratusError) {
        guard isIdentifier(recordType) else {
            throw .badRequest("invalid record type name '\(recordType.prefix(80))': use a letter followed by letters, digits or '_'")
        }
    }

    public static func validate(fieldName: String) throws(StratusError) {
        guard isIdentifier(fieldName) else {
            throw .badRequest("invalid field name '\(fieldName.prefix(80))': use a letter followed by letters, digits or '_'")
        }
    }

    public static func validate(roleName: String) throws(StratusError) {
        guard isIdentifier(roleName) else {
            throw .badRequest("invalid role name '\(roleName.prefix(80))': use a letter followed by letters, digits or '_'")
        }
    }
}
