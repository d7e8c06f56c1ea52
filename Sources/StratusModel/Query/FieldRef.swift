/// What a filter or sort names: a user field or a system field.
public enum FieldRef: Hashable, Sendable, Codable {
    case field(String)
    case system(SystemField)

    public var displayName: String {
        switch self {
        case .field(let n): n
        case .system(let s): s.rawValue
        }
    }
}
