import Crypto
import Foundation
import Testing
import StratusTestSupport
import StratusModel
@testable import StratusStore

/// Settings → Sign-in, as an administrator uses it: providers added (Apple's issuer by default), refused with the
/// reason when they are not providers, removed; and the ways new accounts are made.
@Suite struct ConsoleSignInSettingsTests {
    @Test func providersAndSignUpWaysAreManagedFromTheConsole() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = "iCloud.com.example.SignInSettings"
        #expect(try await s.post("/console/containers", [("id", container)]).status == 303)
        let base = "/console/\(container)/development/sign-in"
        let empty = try await s.get(base)
        #expect(empty.status == 200 && empty.html.contains("No provider yet"))
        #expect(empty.html.contains(#"value="password" checked"#) && empty.html.contains(#"value="provider" checked"#))

        let added = try await s.post("\(base)/providers", [("name", "apple"), ("issuer", ""), ("clientIDs", "com.example.app\ncom.example.web")])
        #expect(added.status == 303)
        let listed = try await s.get(base)
        #expect(listed.html.contains(IdentityProvider.appleIssuer) && listed.html.contains("com.example.app, com.example.web"))
        let id = try ContainerID(container)
        #expect(try f.app.store.identities.provider("apple", container: id)?.clientIDs == ["com.example.app", "com.example.web"])

        let plain = try await s.post("\(base)/providers", [("name", "google"), ("issuer", "http://accounts.google.com"), ("clientIDs", "x")])
        #expect(plain.status == 400 && plain.html.contains("https"), "plain http is refused off loopback")
        #expect(try f.app.store.identities.provider("google", container: id) == nil)
        #expect(try await s.post("\(base)/providers", [("name", "x"), ("issuer", "https://id.example.com"), ("clientIDs", "a")], csrf: false).status == 403)

        // Apple on the web, from the operator's key: Stratus makes the client secret, so the page has a button.
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let keyed = try await s.post("\(base)/providers", [("name", "apple-web"), ("issuer", IdentityProvider.appleIssuer), ("clientIDs", "com.example.web"),
                                                           ("appleTeamID", "TEAM123456"), ("appleKeyID", "KEY9876543"), ("applePrivateKey", pem)])
        #expect(keyed.status == 303, "\(keyed.html)")
        #expect(try f.app.store.identities.webProviders(container: id) == ["apple-web"])
        let keyedPage = try await s.get(base)
        #expect(!keyedPage.html.contains("PRIVATE KEY"), "the key is never shown")
        let halfKey = try await s.post("\(base)/providers", [("name", "apple-half"), ("issuer", IdentityProvider.appleIssuer), ("clientIDs", "x"),
                                                             ("appleTeamID", "TEAM123456"), ("applePrivateKey", pem)])
        #expect(halfKey.status == 400)
        #expect(try f.app.store.identities.provider("apple-half", container: id) == nil)

        #expect(try await s.post("\(base)/sign-up", [("way", "passkey"), ("way", "password")]).status == 303)
        #expect(try f.app.store.accounts.signUpWays(container: id) == [.passkey, .password])
        #expect(try await s.get(base).html.contains(#"value="passkey" checked"#))
        #expect(try await s.post("\(base)/sign-up", [("way", "provider")]).status == 303)
        #expect(try f.app.store.accounts.signUpWays(container: id) == [.provider])
        let chosen = try await s.get(base)
        #expect(!chosen.html.contains(#"value="password" checked"#) && chosen.html.contains(#"value="provider" checked"#))

        #expect(try await s.post("\(base)/providers/apple/remove").status == 303)
        #expect(try await s.post("\(base)/providers/apple-web/remove").status == 303)
        #expect(try f.app.store.identities.providers(container: id).isEmpty)
        #expect(try await s.get("/console/audit").html.contains("remove identity provider"))
    }
}

/// The Users page says how each user signs in, and lets an admin unlink a way, never the last.
@Suite struct ConsoleSignInWaysTests {
    @Test func theUsersPageShowsAndUnlinksWaysToSignIn() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = "iCloud.com.example.Ways"
        #expect(try await s.post("/console/containers", [("id", container)]).status == 303)
        let id = try ContainerID(container)
        let store = f.app.store
        try store.identities.saveProvider(try IdentityProvider(name: "apple", issuer: IdentityProvider.appleIssuer, clientIDs: ["a"]),
                                          container: id)
        let both = try await offPool {
            try store.accounts.createUser(container: id, email: "both@example.com", password: "a long password")
        }
        let onlyApple = try store.identities.signIn(IdentityClaims(issuer: IdentityProvider.appleIssuer, subject: "only"), container: id)
        // Both's Apple account, linked as a sign-in would have linked it.
        try store.control.write { s in
            _ = try UserIdentities.link(issuer: IdentityProvider.appleIssuer, subject: "both", user: both.userRecordName, email: nil,
                                        container: id, at: WallClock.nowMillis(), s)
        }
        let base = "/console/\(container)/development/users"
        let page = try await s.get(base)
        #expect(page.html.contains("password · apple") && page.html.contains("Unlink apple"), "\(page.html)")
        #expect(page.html.components(separatedBy: ">Unlink apple</button>").count == 2, "only the user with two ways offers it")

        // The last way is never taken, even asked by hand.
        let last = try await s.post("\(base)/\(onlyApple.userRecordName)/unlink", [("way", "issuer:" + IdentityProvider.appleIssuer)])
        #expect(last.status == 303 && (last.headers["location"] ?? "").contains("last"))
        #expect(try store.identities.issuers(of: onlyApple.userRecordName, container: id) == [IdentityProvider.appleIssuer])

        #expect(try await s.post("\(base)/\(both.userRecordName)/unlink", [("way", "issuer:" + IdentityProvider.appleIssuer)]).status == 303)
        #expect(try store.identities.issuers(of: both.userRecordName, container: id).isEmpty)
        #expect(try await s.get("/console/audit").html.contains("unlink a way to sign in"))
    }
}
