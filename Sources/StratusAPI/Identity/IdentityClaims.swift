/// What a verified identity token says about its user. The user is `(issuer, subject)`, never the provider's name
/// in Stratus: renaming or removing a provider orphans no one.
struct IdentityClaims: Sendable, Equatable {
    var issuer, subject: String
    /// Absent for accounts that have none (managed Apple Accounts); a private-relay address is a fine email.
    var email: String?
    /// False when the provider did not say (a provider that sends no `email_verified` has an unverified email).
    var emailVerified: Bool
    var isPrivateEmail: Bool
    var givenName, familyName: String?
}
