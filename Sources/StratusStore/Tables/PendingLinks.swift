import Foundation
import StratusModel

/// `pending_links` (control database): the provider identities waiting for their user to prove the account that
/// has their verified email (`PendingLink`), by the hash of their token, with the hash of their browser binding;
/// each is taken once, and gone when it expires. Every statement on it is here, and the migration that made it.
enum PendingLinks {
    enum Column: String, TableColumn {
        case token, container, environment, provider, issuer, subject, email
        case userRecordName = "user_record_name", callback, origin, binding, address, expiresAt = "expires_at"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v28-pending-links") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE pending_links(token TEXT PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL,
                    provider TEXT NOT NULL, issuer TEXT NOT NULL, subject TEXT NOT NULL, email TEXT,
                    user_record_name TEXT NOT NULL, callback TEXT, origin TEXT, binding TEXT NOT NULL,
                    address TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX pending_links_expiry ON pending_links(expires_at);
                CREATE INDEX pending_links_address ON pending_links(address);
                """))
        }
    }

    /// Keeps a link that waits, after forgetting expired ones; false past `perAddress` or `total` under way.
    static func begin(_ l: PendingLink, perAddress: Int, total: Int, now: Int64, _ s: any SQLSession) throws -> Bool {
        guard try CeremonyBudget.admits("pending_links", address: l.address, perAddress: perAddress, total: total,
                                        now: now, s) else { return false }
        try s.execute("""
            INSERT INTO pending_links(token, container, environment, provider, issuer, subject, email,
                                      user_record_name, callback, origin, binding, address, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, SignInFlows.digest(l.token), l.container.rawValue, l.environment.rawValue, l.provider,
                      l.identity.issuer, l.identity.subject, l.identity.email, l.user, l.callback, l.origin,
                      SignInFlows.digest(l.binding), l.address, l.expiresAt)
        return true
    }

    private static let link = Selection<Column>([.container, .environment, .provider, .issuer, .subject, .email,
                                                 .userRecordName, .callback, .origin, .binding, .address, .expiresAt])

    /// The link of `token`, taken (it never ends twice), if it has not expired and `binding` is the browser's it
    /// was made for; nil otherwise.
    static func take(_ token: String, binding: String, now: Int64, _ s: any SQLSession) throws -> PendingLink? {
        try CeremonyBudget.take("pending_links", keyColumn: "token", key: SignInFlows.digest(token), columns: link.sql,
                                now: now, s, expiresAt: \.expiresAt) { r -> PendingLink? in
            let row = NamedRow(r, link)
            guard let c = try? ContainerID(row.string(.container) ?? ""),
                  let e = ContainerEnvironment(rawValue: row.string(.environment) ?? ""),
                  row.string(.binding) == SignInFlows.digest(binding) else { return nil }
            let identity = IdentityClaims(issuer: row.string(.issuer) ?? "", subject: row.string(.subject) ?? "",
                                          email: row.string(.email), emailVerified: true)
            return PendingLink(token: token, binding: binding, container: c, environment: e,
                               provider: row.string(.provider) ?? "", identity: identity,
                               user: row.string(.userRecordName) ?? "", callback: row.string(.callback),
                               origin: row.string(.origin), address: row.string(.address) ?? "",
                               expiresAt: row.int64(.expiresAt) ?? 0)
        }
    }
}
