/// What a web auth token stands for: its user, when it stops working, and the sign-in it belongs to.
///
/// Every token a sign-in hands out, the first and each one it rotates to, is of one family, named by the hash of
/// the first: signing out ends the family, and what the session made (web courier tokens, registered devices) is
/// bound to the family, so it lives as long as the user stays signed in there, whichever of its tokens is current.
public struct WebAuthSession: Sendable {
    public var user: String
    public var expiresAt: Int64
    public var family: String
}
