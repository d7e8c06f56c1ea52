/// What a security role may do with records of one type. WRITE includes delete.
public struct Permission: NamedOptions, Hashable, Sendable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let create = Permission(rawValue: 1)
    public static let read = Permission(rawValue: 2)
    public static let write = Permission(rawValue: 4)
    public static let all: Permission = [.create, .read, .write]

    /// In the order the schema language prints grants.
    public static let named: [(option: Permission, name: String)] = [(.write, "WRITE"), (.create, "CREATE"), (.read,
            "READ")]
}
