/// What a security role may do with records of one type. WRITE includes delete.
public struct Permission: OptionSet, Hashable, Sendable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let create = Permission(rawValue: 1)
    public static let read = Permission(rawValue: 2)
    public static let write = Permission(rawValue: 4)
    public static let all: Permission = [.create, .read, .write]

    /// In the order the schema language prints grants.
    public var names: [String] {
        var out: [String] = []
        if contains(.write) { out.append("WRITE") }
        if contains(.create) { out.append("CREATE") }
        if contains(.read) { out.append("READ") }
        return out
    }

    public init?(name: String) {
        switch name.uppercased() {
        case "CREATE": self = .create
        case "READ": self = .read
        case "WRITE": self = .write
        default: return nil
        }
    }
}
