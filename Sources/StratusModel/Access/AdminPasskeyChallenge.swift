/// A passkey ceremony of the console under way: adding a passkey to a signed-in administrator, the second step of
/// a password sign-in, or a whole sign-in with a passkey alone (user verification makes it two factors in one).
/// `binding` is the random value of a cookie of the browser that began it; it ends once.
public struct AdminPasskeyChallenge: Sendable, Equatable {
    public enum Purpose: String, Sendable { case add, secondStep = "second-step", signIn = "sign-in" }

    public var challenge, binding: String
    /// The administrator it is for; nil for a sign-in, where the passkey names them.
    public var admin: Int64?
    public var purpose: Purpose
    public var address: String
    /// Milliseconds since 1970.
    public var expiresAt: Int64

    public init(challenge: String, binding: String, admin: Int64?, purpose: Purpose, address: String,
                expiresAt: Int64) {
        (self.challenge, self.binding, self.admin, self.purpose) = (challenge, binding, admin, purpose)
        (self.address, self.expiresAt) = (address, expiresAt)
    }

    public static let lifetime: Int64 = 5 * 60 * 1000
}
