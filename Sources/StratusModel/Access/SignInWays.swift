/// How one user signs in: a password, passkeys, and the issuers of the providers whose subject they are (the
/// console's Users page shows them, and an admin may unlink all but the last).
public struct SignInWays: Sendable, Equatable {
    public var password: Bool
    public var passkeys: Int
    public var issuers: [String]

    public init(password: Bool = false, passkeys: Int = 0, issuers: [String] = []) {
        (self.password, self.passkeys, self.issuers) = (password, passkeys, issuers)
    }

    /// How many ways lead to the account (every passkey counts as one).
    public var count: Int { (password ? 1 : 0) + passkeys + issuers.count }
}
