import Foundation
import StratusModel

/// `identity_providers` (control database): the OpenID providers each container's users may sign in with, by their
/// name in the container, with the issuer and the client IDs (a JSON array) their tokens may be for. Every statement
/// on it is here.
enum IdentityProviderRows {
    enum Column: String, TableColumn {
        case container, name, issuer, clientIDs = "client_ids", createdAt = "created_at"
    }

    private static let provider = Selection<Column>([.name, .issuer, .clientIDs])

    private static func provider(_ r: any SQLRow) -> IdentityProvider? {
        let row = NamedRow(r, provider)
        let ids = (try? JSONDecoder().decode([String].self, from: Data((row.string(.clientIDs) ?? "[]").utf8))) ?? []
        return try? IdentityProvider(name: row.string(.name) ?? "", issuer: row.string(.issuer) ?? "", clientIDs: ids)
    }

    /// Adds a provider, or replaces the one of its name.
    static func save(_ p: IdentityProvider, container: ContainerID, at now: Int64, _ s: any SQLSession) throws {
        let ids = String(decoding: try JSONEncoder().encode(p.clientIDs), as: UTF8.self)
        try s.execute("""
            INSERT INTO identity_providers(container, name, issuer, client_ids, created_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(container, name) DO UPDATE SET issuer = excluded.issuer, client_ids = excluded.client_ids
            """, container.rawValue, p.name, p.issuer, ids, now)
    }

    static func all(container: ContainerID, _ s: any SQLSession) throws -> [IdentityProvider] {
        try s.all("SELECT \(provider.sql) FROM identity_providers WHERE container = ? ORDER BY name",
                  [container.rawValue], provider)
    }

    static func find(_ name: String, container: ContainerID, _ s: any SQLSession) throws -> IdentityProvider? {
        try s.one("SELECT \(provider.sql) FROM identity_providers WHERE container = ? AND name = ?",
                  [container.rawValue, name], provider)
    }

    /// False when there was none of that name.
    static func delete(_ name: String, container: ContainerID, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM identity_providers WHERE container = ? AND name = ?", container.rawValue, name) == 1
    }
}
