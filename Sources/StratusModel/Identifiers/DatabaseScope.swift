public enum DatabaseScope: String, Sendable, CaseIterable, Codable, Hashable {
    case `public`, `private`, shared

    public init(parsing s: String) throws(StratusError) {
        guard let e = DatabaseScope(rawValue: s) else { throw .badRequest("unknown database '\(s.prefix(40))': expected public, private or shared") }
        self = e
    }

    /// CloudKit allows custom zones only in private and shared databases.
    public var allowsCustomZones: Bool { self != .public }
}
