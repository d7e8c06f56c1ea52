import ArgumentParser
import StratusModel
import StratusStore

/// A kind of credential a container keeps (API tokens, server-to-server keys): what `stratus token` and
/// `stratus key` need to list and revoke it, so that one `List` and one `Revoke` serve every kind.
protocol ManagedCredential {
    associatedtype ID: ExpressibleByArgument & CustomStringConvertible
    /// What the help and the audit log call one ("API token").
    static var noun: String { get }
    /// What the help calls its argument ("id", "Key ID").
    static var idName: String { get }
    static func all(_ t: EnvironmentTarget) throws -> [Self]
    static func revoke(_ id: ID, _ t: ContainerTarget) throws
    /// How the audit log names the one revoked.
    static func auditName(_ id: ID) -> String
    /// Its line in `list`: tab-separated, for scripts.
    var listLine: String { get }
}

extension APIToken: ManagedCredential {
    static let noun = "API token", idName = "id"
    static func all(_ t: EnvironmentTarget) throws -> [APIToken] {
        try t.store.credentials.apiTokens(container: t.container, environment: t.environment)
    }
    static func revoke(_ id: Int64, _ t: ContainerTarget) throws { try t.store.credentials.revokeAPIToken(id: id, container: t.container) }
    static func auditName(_ id: Int64) -> String { "#\(id)" }
    var listLine: String {
        "\(id)\t\(name)\t\(revoked ? "revoked" : "active")\t\(allowedOrigins.isEmpty ? "no browser origins" : allowedOrigins.joined(separator: ","))"
    }
}

extension ServerKey: ManagedCredential {
    static let noun = "server-to-server key", idName = "Key ID"
    static func all(_ t: EnvironmentTarget) throws -> [ServerKey] {
        try t.store.credentials.serverKeys(container: t.container, environment: t.environment)
    }
    static func revoke(_ id: String, _ t: ContainerTarget) throws { try t.store.credentials.revokeServerKey(id: id, container: t.container) }
    static func auditName(_ id: String) -> String { id }
    var listLine: String { "\(keyID)\t\(revoked ? "revoked" : "active")\t\(notes)" }
}
