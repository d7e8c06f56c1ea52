import Foundation
import StratusModel

/// `identity_providers` (control database): the OpenID providers each container's users may sign in with, by their
/// name in the container, with the issuer, the client IDs (a JSON array) their tokens may be for, and the client
/// secret of the web sign-in (never shown, never logged), or for Apple the key each client secret is made with.
/// Every statement on it is here, and the migration that gave it Apple's keys.
enum IdentityProviderRows {
    enum Column: String, TableColumn {
        case container, name, issuer, clientIDs = "client_ids", clientSecret = "client_secret", createdAt = "created_at"
        case appleTeamID = "apple_team_id", appleKeyID = "apple_key_id", applePrivateKey = "apple_private_key"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v29-apple-client-secrets") { s in
            try s.script("""
                ALTER TABLE identity_providers ADD COLUMN apple_team_id TEXT;
                ALTER TABLE identity_providers ADD COLUMN apple_key_id TEXT;
                ALTER TABLE identity_providers ADD COLUMN apple_private_key TEXT;
                """)
        }
    }

    private static let provider = Selection<Column>([.name, .issuer, .clientIDs])

    private static func provider(_ r: any SQLRow) -> IdentityProvider? {
        let row = NamedRow(r, provider)
        let ids = (try? JSONDecoder().decode([String].self, from: Data((row.string(.clientIDs) ?? "[]").utf8))) ?? []
        return try? IdentityProvider(name: row.string(.name) ?? "", issuer: row.string(.issuer) ?? "", clientIDs: ids)
    }

    /// Adds a provider, or replaces the one of its name.
    static func save(_ p: IdentityProvider, secret: WebClientSecret?, container: ContainerID, at now: Int64,
                     _ s: any SQLSession) throws {
        let ids = String(decoding: try JSONEncoder().encode(p.clientIDs), as: UTF8.self)
        var fixed: String?, apple: AppleSigningKey?
        switch secret {
        case .fixed(let f): fixed = f
        case .apple(let key): apple = key
        case nil: break
        }
        try s.execute("""
            INSERT INTO identity_providers(container, name, issuer, client_ids, client_secret, apple_team_id,
                                           apple_key_id, apple_private_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(container, name) DO UPDATE SET issuer = excluded.issuer, client_ids = excluded.client_ids,
                client_secret = excluded.client_secret, apple_team_id = excluded.apple_team_id,
                apple_key_id = excluded.apple_key_id, apple_private_key = excluded.apple_private_key
            """, container.rawValue, p.name, p.issuer, ids, fixed, apple?.teamID, apple?.keyID, apple?.privateKeyPEM,
                      now)
    }

    private static let secret = Selection<Column>([.clientSecret, .appleTeamID, .appleKeyID, .applePrivateKey])

    /// How a provider's web sign-in proves itself; nil when it has no web sign-in (native sign-in only).
    static func secret(_ name: String, container: ContainerID, _ s: any SQLSession) throws -> WebClientSecret? {
        try s.one("SELECT \(secret.sql) FROM identity_providers WHERE container = ? AND name = ?",
                  [container.rawValue, name]) { r -> WebClientSecret? in
            let row = NamedRow(r, secret)
            if let fixed = row.string(.clientSecret) { return .fixed(fixed) }
            guard let team = row.string(.appleTeamID), let key = row.string(.appleKeyID),
                  let pem = row.string(.applePrivateKey),
                  let apple = try? AppleSigningKey(teamID: team, keyID: key, privateKeyPEM: pem) else { return nil }
            return .apple(apple)
        } ?? nil
    }

    static func all(container: ContainerID, _ s: any SQLSession) throws -> [IdentityProvider] {
        try s.all("SELECT \(provider.sql) FROM identity_providers WHERE container = ? ORDER BY name",
                  [container.rawValue], provider)
    }

    static func find(_ name: String, container: ContainerID, _ s: any SQLSession) throws -> IdentityProvider? {
        try s.one("SELECT \(provider.sql) FROM identity_providers WHERE container = ? AND name = ?",
                  [container.rawValue, name], provider)
    }

    /// The names of the providers that sign in on the web (those with a client secret, or Apple's key).
    static func web(container: ContainerID, _ s: any SQLSession) throws -> [String] {
        try s.all("""
            SELECT name FROM identity_providers
            WHERE container = ? AND (client_secret IS NOT NULL OR apple_private_key IS NOT NULL) ORDER BY name
            """, [container.rawValue]) { NamedRow($0, Selection<Column>([.name])).string(.name) }
    }

    /// False when there was none of that name.
    static func delete(_ name: String, container: ContainerID, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM identity_providers WHERE container = ? AND name = ?", container.rawValue, name) == 1
    }
}
