import Foundation
import StratusModel

/// `identity_providers` (control database): the OpenID providers each container's users may sign in with, by their
/// name in the container, with the issuer, the client IDs (a JSON array) their tokens may be for, and the client
/// secret of the web sign-in (never shown, never logged). Every statement on it is here.
enum IdentityProviderRows {
    enum Column: String, TableColumn {
        case container, name, issuer, clientIDs = "client_ids", clientSecret = "client_secret", createdAt = "created_at"
    }

    private static let provider = Selection<Column>([.name, .issuer, .clientIDs])

    private static func provider(_ r: any SQLRow) -> IdentityProvider? {
        let row = NamedRow(r, provider)
        let ids = (try? JSONDecoder().decode([String].self, from: Data((row.string(.clientIDs) ?? "[]").utf8))) ?? []
        return try? IdentityProvider(name: row.string(.name) ?? "", issuer: row.string(.issuer) ?? "", clientIDs: ids)
    }

    /// Adds a provider, or replaces the one of its name.
    static func save(_ p: IdentityProvider, clientSecret: String?, container: ContainerID, at now: Int64,
                     _ s: any SQLSession) throws {
        let ids = String(decoding: try JSONEncoder().encode(p.clientIDs), as: UTF8.self)
        try s.execute("""
            INSERT INTO identity_providers(container, name, issuer, client_ids, client_secret, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(container, name) DO UPDATE SET issuer = excluded.issuer, client_ids = excluded.client_ids,
                client_secret = excluded.client_secret
            """, container.rawValue, p.name, p.issuer, ids, clientSecret, now)
    }

    /// The client secret of a provider's web sign-in; nil when it has none (native sign-in only).
    static func clientSecret(_ name: String, container: ContainerID, _ s: any SQLSession) throws -> String? {
        try s.one("SELECT client_secret FROM identity_providers WHERE container = ? AND name = ?",
                  [container.rawValue, name]) { NamedRow($0, Selection<Column>([.clientSecret])).string(.clientSecret) }
    }

    static func all(container: ContainerID, _ s: any SQLSession) throws -> [IdentityProvider] {
        try s.all("SELECT \(provider.sql) FROM identity_providers WHERE container = ? ORDER BY name",
                  [container.rawValue], provider)
    }

    static func find(_ name: String, container: ContainerID, _ s: any SQLSession) throws -> IdentityProvider? {
        try s.one("SELECT \(provider.sql) FROM identity_providers WHERE container = ? AND name = ?",
                  [container.rawValue, name], provider)
    }

    /// The names of the providers that sign in on the web (those with a client secret).
    static func web(container: ContainerID, _ s: any SQLSession) throws -> [String] {
        try s.all("SELECT name FROM identity_providers WHERE container = ? AND client_secret IS NOT NULL ORDER BY name",
                  [container.rawValue]) { NamedRow($0, Selection<Column>([.name])).string(.name) }
    }

    /// False when there was none of that name.
    static func delete(_ name: String, container: ContainerID, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM identity_providers WHERE container = ? AND name = ?", container.rawValue, name) == 1
    }
}
