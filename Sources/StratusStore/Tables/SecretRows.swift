import Foundation

/// `secrets` (environment database): the environment's own secret, from which its tokens' keys and the
/// notifications' ids are derived. Every statement on it is here.
enum SecretRows {
    enum Column: String, TableColumn {
        case name, value
    }

    private static func value(_ r: any SQLRow) -> Data? { NamedRow(r, Selection<Column>([.value])).data(.value) }

    /// The environment's secret, or nil before it has one.
    static func environment(_ s: any SQLSession) throws -> Data? {
        try s.one("SELECT value FROM secrets WHERE name = 'environment'", [], value)
    }

    /// Keeps `fresh` as the environment's secret unless another server kept one first; returns the one kept.
    static func keepEnvironment(_ fresh: Data, _ s: any SQLSession) throws -> Data {
        try s.execute("INSERT INTO secrets(name, value) VALUES ('environment', ?) ON CONFLICT(name) DO NOTHING", fresh)
        return try environment(s) ?? fresh
    }
}
