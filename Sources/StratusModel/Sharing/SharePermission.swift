/// What a share lets its participants (or, as `publicPermission`, anyone with its URL) do with the shared records.
public enum SharePermission: String, Sendable, Hashable, Codable, CaseIterable {
    case none = "NONE"
    case readOnly = "READ_ONLY"
    case readWrite = "READ_WRITE"

    public init(parsing s: String, _ what: String) throws(StratusError) {
        guard let p = SharePermission(rawValue: s) else { throw .badRequest("\(what) must be NONE, READ_ONLY or READ_WRITE, not '\(s.prefix(30))'") }
        self = p
    }

    public var allowsWrite: Bool { self == .readWrite }
}
