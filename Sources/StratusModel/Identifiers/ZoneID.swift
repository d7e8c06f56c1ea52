/// A zone's identity inside one database: its name and the user that owns it.
public struct ZoneID: Hashable, Sendable, Codable, CustomStringConvertible {
    public static let defaultZoneName = "_defaultZone"
    public var zoneName: String
    public var ownerRecordName: String?

    public init(zoneName: String = ZoneID.defaultZoneName, ownerRecordName: String? = nil) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
    }

    public static let defaultZone = ZoneID()
    public var isDefault: Bool { zoneName == ZoneID.defaultZoneName }
    public var description: String { zoneName }

    /// Zone names are ASCII, at most 255 characters; a leading underscore is reserved for `_defaultZone`.
    public static func validate(zoneName: String) throws(StratusError) {
        if zoneName == defaultZoneName { return }
        let bytes = Array(zoneName.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { throw .badRequest("zone name must be 1 to 255 characters") }
        // A browser rewrites `.` and `..` in a URL path, so such a zone could never be opened in the console.
        guard zoneName != ".", zoneName != ".." else { throw .badRequest("zone name cannot be '.' or '..'") }
        guard bytes[0] != UInt8(ascii: "_") else { throw .badRequest("zone name '\(zoneName)' is reserved: names starting with '_' belong to the system") }
        guard bytes.allSatisfy({ $0.isIdentifierByte || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }) else {
            throw .badRequest("invalid zone name '\(zoneName.prefix(80))': use ASCII letters, digits, '_', '-' or '.'")
        }
    }
}
