import Crypto
import Foundation
import StratusModel

/// API tokens, server-to-server keys and APNs keys, kept in the control database. Secrets are stored hashed.
public final class CredentialStore: Sendable {
    let control: any SQLDatabase
    let registry: EnvironmentRegistry
    /// Every API request authenticates; this keeps that from being a trip to the control database each time.
    /// Keyed by the secret's digest itself: its hex, which the database is asked with, is made only on a miss.
    let apiTokenCache = ExpiringCache<SHA256Digest, APIToken>()

    init(control: any SQLDatabase, registry: EnvironmentRegistry) {
        self.control = control
        self.registry = registry
    }

    static func registerMigrations(_ m: inout SQLMigrations) { APITokenRows.registerMigrations(&m) }

    // MARK: API tokens

    /// Creates a token for one container environment. The secret (64 lowercase hex, the form CloudKit clients
    /// check) is returned once and only its hash is kept.
    public func createAPIToken(container: ContainerID, environment: ContainerEnvironment, name: String,
                               allowedOrigins: [String] = []) throws(StratusError) -> (APIToken, secret: String) {
        guard try registry.containerExists(container) else { throw StratusError(.notFound,
                "container \(container) does not exist") }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 100 else { throw .badRequest("a token needs a name of 1 to 100 characters") }
        var origins: [String] = []
        for o in allowedOrigins {
            guard let origin = WebOrigin(o) else { throw .badRequest("allowed origin '\(o.prefix(100))' must look like https://example.com") }
            if !origins.contains(origin.description) { origins.append(origin.description) }
        }
        guard origins.count <= 100 else { throw .badRequest("a token allows at most 100 origins") }
        let secret = Secrets.hex(Secrets.randomBytes(32))
        let now = WallClock.nowMillis()
        let originsJSON = String(decoding: (try? JSONEncoder().encode(origins)) ?? Data("[]".utf8), as: UTF8.self)
        let id: Int64 = try guarded {
            try control.write { s in
                try APITokenRows.insert(container: container, environment: environment, name: trimmed,
                                        hash: Secrets.tokenHash(secret), origins: originsJSON,
                                        at: now, s)
            }
        }
        return (APIToken(id: id, container: container, environment: environment, name: trimmed, allowedOrigins: origins,
                         createdAt: now, revoked: false), secret)
    }

    public func apiTokens(container: ContainerID,
                          environment: ContainerEnvironment) throws(StratusError) -> [APIToken] {
        try guarded {
            try control.read { s in try APITokenRows.all(container: container, environment: environment, s) }
        }
    }

    public func revokeAPIToken(id: Int64, container: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try APITokenRows.revoke(id: id, container: container, s) else {
                    throw StratusError(.notFound, "no such token")
                }
            }
        }
        credentialsChanged()
    }

    /// The live token a secret belongs to, or nil (unknown or revoked).
    public func authenticateAPIToken(_ secret: String) throws(StratusError) -> APIToken? {
        guard secret.utf8.count <= 256 else { return nil }
        let digest = Secrets.digest(secret)
        if let hit = apiTokenCache.value(for: digest) { return hit }
        let hash = Secrets.hex(digest)
        let token = try guarded {
            try control.read { s in try APITokenRows.live(hash: hash, s) }
        }
        // Only live tokens are kept: one created a moment ago (here or by the CLI) works at once.
        if let token { apiTokenCache.set(token, for: digest) }
        return token
    }

    /// Forgets cached tokens after a revocation or deletion, here and on every other server on the same
    /// PostgreSQL database, so that it takes effect on the next request.
    func credentialsChanged() {
        apiTokenCache.removeAll()
        registry.invalidation.publish("credentials")
    }
}
