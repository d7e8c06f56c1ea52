import Crypto
import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// v27 gives the control database the providers, the identities and the used nonces, and makes a user's email
/// optional (SQLite makes `users` anew for it); v28 and v29 add the links waiting for a proof and Apple's keys:
/// every user made before keeps their account, password and email.
@Suite struct IdentityMigrationTests {
    @Test(arguments: Backend.allCases)
    func usersMadeBeforeKeepTheirAccounts(_ backend: Backend) async throws {
        try await offPool {
            guard let f = try Fixture.make(backend) else { return }
            let before = try f.store.accounts.createUser(container: f.container, email: "kept@example.com", password: "a long password",
                                                         firstName: "Kept", discoverable: true)
            // The control database as the release before left it: no v27.
            try f.store.control.write { s in
                for table in ["identity_providers", "user_identities", "used_nonces", "sign_in_flows", "passkeys",
                              "passkey_challenges", "pending_links"] { try s.script("DROP TABLE \(table)") }
                try s.script("ALTER TABLE containers DROP COLUMN sign_up")
                for step in ["v27-identities", "v28-pending-links", "v29-apple-client-secrets"] {
                    try Fixture.forgetMigration(step, s)
                }
            }
            let reopened = try f.reopen()
            defer { reopened.store.close() }
            let accounts = reopened.store.accounts
            let after = try #require(try accounts.authenticateUser(container: f.container, email: "KEPT@example.com", password: "a long password"))
            #expect(after == before)
            #expect(try accounts.users(container: f.container) == [before])
            // And a user without an email is now possible, beside them.
            let idp = IdentityClaims(issuer: "https://id.example.com", subject: "s-1")
            let made = try reopened.store.identities.signIn(idp, container: f.container)
            #expect(made.email == "" && made.userRecordName != before.userRecordName)
            let second = try reopened.store.identities.signIn(IdentityClaims(issuer: "https://id.example.com", subject: "s-2"), container: f.container)
            #expect(second.userRecordName != made.userRecordName, "two users without an email")
            #expect(try reopened.store.identities.signIn(idp, container: f.container) == made)
            let apple = try AppleSigningKey(teamID: "TEAM123456", keyID: "KEY9876543", privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation)
            try reopened.store.identities.saveProvider(try IdentityProvider(name: "apple", issuer: IdentityProvider.appleIssuer, clientIDs: ["w"]),
                                                       container: f.container, secret: .apple(apple))
            #expect(try reopened.store.identities.webSecret("apple", container: f.container) == .apple(apple))
        }
    }
}
