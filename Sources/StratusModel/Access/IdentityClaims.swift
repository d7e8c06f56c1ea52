/// What a verified identity token says about its user. The user is `(issuer, subject)`, never the provider's name
/// in Stratus: renaming or removing a provider orphans no one.
public struct IdentityClaims: Sendable, Equatable {
    public var issuer, subject: String
    /// Absent for accounts that have none (managed Apple Accounts); a private-relay address is a fine email.
    public var email: String?
    /// False when the provider did not say (a provider that sends no `email_verified` has an unverified email).
    public var emailVerified: Bool
    public var isPrivateEmail: Bool
    public var givenName, familyName: String?

    public init(issuer: String, subject: String, email: String? = nil, emailVerified: Bool = false,
                isPrivateEmail: Bool = false, givenName: String? = nil, familyName: String? = nil) {
        self.issuer = issuer
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.givenName = givenName
        self.familyName = familyName
    }
}
