import StratusModel

/// The admin API's scoped tokens: made by an owner (the console's Administrators page, or `stratus admin token
/// create`), each with one role in one container or every container, listed without their secrets, revoked at once.
extension AdminStore {
    /// Admin tokens the server keeps at most: each is a row anyone with an owner's rights makes.
    public static let tokensInAll = 1000

    /// Makes a token; its secret is in the answer only. BAD_REQUEST for a name not 1 to 100 characters or an expiry
    /// not ahead; LIMIT_EXCEEDED past `tokensInAll`.
    public func createToken(name: String, container: ContainerID?, role: AdminRole, expiresAt: Int64?,
                            by who: String) throws(StratusError) -> (token: AdminToken, secret: String) {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(name.count) else { throw .badRequest("a token's name is 1 to 100 characters") }
        let now = WallClock.nowMillis()
        if let expiresAt, expiresAt <= now { throw .badRequest("a token's expiry is ahead") }
        let secret = Secrets.hex(Secrets.randomBytes(32))
        var token = AdminToken(id: 0, name: name, container: container, role: role, createdAt: now,
                               expiresAt: expiresAt, createdBy: String(who.prefix(200)))
        token.id = try guarded {
            try control.write { s in
                guard try AdminTokenRows.count(s) < Self.tokensInAll else {
                    throw StratusError(.limitExceeded, "the server keeps \(Self.tokensInAll) admin tokens at most")
                }
                return try AdminTokenRows.insert(token, hash: Secrets.tokenHash(secret), s)
            }
        }
        return (token, secret)
    }

    public func tokens() throws(StratusError) -> [AdminToken] {
        try guarded { try control.read { s in try AdminTokenRows.all(s) } }
    }

    /// The live token of this secret; nil when unknown, revoked or expired.
    public func authenticateToken(_ secret: String) throws(StratusError) -> AdminToken? {
        guard secret.utf8.count == 64 else { return nil }
        let hash = Secrets.tokenHash(secret)
        let found = try guarded { try control.read { s in try AdminTokenRows.find(hash: hash, s) } }
        guard let found, found.expiresAt.map({ $0 > WallClock.nowMillis() }) ?? true else { return nil }
        return found
    }

    /// NOT_FOUND when there is no token of that id.
    public func revokeToken(_ id: Int64) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try AdminTokenRows.delete(id, s) else { throw StratusError(.notFound, "no admin token \(id)") }
            }
        }
    }
}
