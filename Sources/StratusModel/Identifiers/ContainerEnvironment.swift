/// Development and Production keep separate data and separate schema.
public enum ContainerEnvironment: String, Sendable, CaseIterable, Codable, Hashable {
    case development, production

    public init(parsing s: String) throws(StratusError) {
        guard let e = ContainerEnvironment(rawValue: s) else { throw .badRequest("unknown environment '\(s.prefix(40))': expected development or production") }
        self = e
    }
}
