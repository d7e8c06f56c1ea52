import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusJSON
import StratusModel
import StratusServer
import StratusStore
import StratusTestSupport

/// Signing in as iCloud does, without a password: an app hands Stratus the identity token a provider (Sign in with
/// Apple, any OpenID provider) gave it, at `POST /auth/1/{container}/{environment}/token`, and gets a web auth
/// token. Against a stand-in provider on a real socket, with keys made per run and rotated.
@Suite struct IdentityExchangeTests {
    /// The fixture with the stand-in trusted as `apple` for the app's client ID.
    static func setUp(_ backend: Backend = .sqlite,
                      throttle: SignInThrottle.Policy = SignInThrottle.Policy(freeFailures: 1000)) async throws
        -> (APIFixture, StandInOpenIDProvider)? {
        guard let f = try await APIFixture.make(backend, configure: { $0.signInThrottle = throttle }) else { return nil }
        let provider = try await StandInOpenIDProvider()
        try f.app.store.identities.saveProvider(try IdentityProvider(name: "apple", issuer: provider.issuer,
                                                                     clientIDs: ["com.example.app", "com.example.web"]),
                                                container: f.container)
        return (f, provider)
    }

    /// POSTs `body` to the exchange with the Development API token (or `query`).
    static func exchange(_ f: APIFixture, _ body: String, query: String? = nil) async throws -> APIFixture.Reply {
        let q = query ?? "ckAPIToken=\(APIFixture.encode(f.devToken))"
        var req = URLRequest(url: URL(string: "\(f.app.url)auth/1/\(f.container.rawValue)/development/token?\(q)")!)
        req.httpMethod = "POST"
        req.httpBody = Data(body.utf8)
        req.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (d, r) = try await f.session.data(for: req)
        return APIFixture.Reply(status: (r as! HTTPURLResponse).statusCode, json: (try? JSON.parse(d)) ?? .null, headers: [:],
                                text: String(decoding: d, as: UTF8.self))
    }

    static func body(_ provider: String = "apple", token: String, nonce: String, extra: String = "") -> String {
        #"{"provider":"\#(provider)","idToken":"\#(token)","nonce":"\#(nonce)"\#(extra)}"#
    }

    static func userCount(_ f: APIFixture) throws -> Int { try f.app.store.accounts.users(container: f.container).count }

    @Test(arguments: Backend.allCases)
    func aProviderTokenSignsInAndTheSameSubjectIsAlwaysTheSameUser(_ backend: Backend) async throws {
        guard let (f, idp) = try await Self.setUp(backend) else { return }
        defer { Task { await idp.stop() } }
        // Apple sends the name once, outside the token: kept on first sign-in.
        let first = try await Self.exchange(f, Self.body(token: idp.token(subject: "001.apple.ada", nonce: "n-1", email: "ada@privaterelay.appleid.com"),
                                                         nonce: "n-1", extra: #","givenName":"Ada","familyName":"Lovelace""#))
        #expect(first.status == 200, "\(first.text)")
        let token = try #require(first.json["ckWebAuthToken"]?.string)
        let name = try #require(first.json["userRecordName"]?.string)
        #expect(name.hasPrefix("_"))
        let caller = try await f.call("users/caller", user: token)
        #expect(caller.status == 200 && caller.json["userRecordName"]?.string == name, "\(caller.text)")
        #expect(caller.json["nameComponents"]?["givenName"]?.string == "Ada" && caller.json["nameComponents"]?["familyName"]?.string == "Lovelace")
        // The private database is this user's.
        let saved = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note"}}]}"#,
                                     db: "private", user: token)
        #expect(saved.status == 200 && saved.json.records.first?["recordName"]?.string == "n1", "\(saved.text)")

        // Again, with a new nonce and a name that is not kept: the same user, the same name.
        let again = try await Self.exchange(f, Self.body(token: idp.token(subject: "001.apple.ada", audience: "com.example.web", nonce: "n-2"),
                                                         nonce: "n-2", extra: #","givenName":"Someone""#))
        #expect(again.status == 200 && again.json["userRecordName"]?.string == name, "\(again.text)")
        let sameCaller = try await f.call("users/caller", user: again.json["ckWebAuthToken"]?.string ?? "")
        #expect(sameCaller.json["nameComponents"]?["givenName"]?.string == "Ada")
        let mine = try await f.call("records/lookup", #"{"records":[{"recordName":"n1"}]}"#, db: "private", user: again.json["ckWebAuthToken"]?.string ?? "")
        #expect(mine.json.records.first?["recordType"]?.string == "Note", "\(mine.text)")

        // Renaming the provider orphans no one: users are (iss, sub).
        try f.app.store.identities.removeProvider("apple", container: f.container)
        let gone = try await Self.exchange(f, Self.body(token: idp.token(subject: "001.apple.ada", nonce: "n-3"), nonce: "n-3"))
        #expect(gone.status == 401 && gone.json.code == "AUTHENTICATION_FAILED")
        try f.app.store.identities.saveProvider(try IdentityProvider(name: "siwa", issuer: idp.issuer, clientIDs: ["com.example.app"]),
                                                container: f.container)
        let renamed = try await Self.exchange(f, Self.body("siwa", token: idp.token(subject: "001.apple.ada", nonce: "n-4"), nonce: "n-4"))
        #expect(renamed.status == 200 && renamed.json["userRecordName"]?.string == name, "\(renamed.text)")

        // A managed account sends no email: it signs in all the same, as a user of its own.
        let managed = try await Self.exchange(f, Self.body("siwa", token: idp.token(subject: "002.managed", nonce: "n-5"), nonce: "n-5"))
        #expect(managed.status == 200 && managed.json["userRecordName"]?.string != name, "\(managed.text)")

        // Signing out ends the token, as for any sign-in.
        var out = URLRequest(url: URL(string: "\(f.app.url)auth/1/\(f.container.rawValue)/development/signout?ckWebAuthToken=\(APIFixture.encode(token))")!)
        out.httpMethod = "POST"
        _ = try await f.session.data(for: out)
        #expect(try await f.call("users/caller", user: token).json.code == "AUTHENTICATION_REQUIRED")
    }

    /// Each bad token, body or call is refused for what is wrong with it, and not one creates or links an account.
    @Test func everyBadTokenIsRefusedAndMakesNoAccount() async throws {
        guard let (f, idp) = try await Self.setUp() else { return }
        defer { Task { await idp.stop() } }
        let before = try Self.userCount(f)
        let stranger = IdentityKeyPair()
        let nonce = "raw-nonce"
        let good = idp.token(subject: "003.victim", nonce: nonce)
        let parts = good.split(separator: ".").map(String.init)
        let cases: [(String, String, Int, String)] = [
            ("expired", Self.body(token: idp.token(subject: "003.victim", nonce: nonce, ["exp": .int(Int64(Date().timeIntervalSince1970) - 600)]), nonce: nonce), 401, "expired"),
            ("other audience", Self.body(token: idp.token(subject: "003.victim", audience: "com.evil.app", nonce: nonce), nonce: nonce), 401, "client"),
            ("other issuer", Self.body(token: idp.token(subject: "003.victim", nonce: nonce, ["iss": "https://evil.example"]), nonce: nonce), 401, "issuer"),
            ("signed by another key", Self.body(token: idp.token(subject: "003.victim", nonce: nonce, keys: stranger), nonce: nonce), 401, "kid"),
            ("alg none", Self.body(token: idp.token(subject: "003.victim", nonce: nonce, alg: "none"), nonce: nonce), 401, "algorithm"),
            ("alg HS256", Self.body(token: idp.token(subject: "003.victim", nonce: nonce, alg: "HS256"), nonce: nonce), 401, "algorithm"),
            ("tampered", Self.body(token: parts[0] + "." + IdentityKeyPair.b64(Data(#"{"sub":"x"}"#.utf8)) + "." + parts[2], nonce: nonce), 401, "signature"),
            ("wrong nonce", Self.body(token: good, nonce: "another-nonce"), 401, "nonce"),
            ("hash sent as the nonce", Self.body(token: good, nonce: StandInOpenIDProvider.hashed(nonce)), 401, "nonce"),
            ("unknown provider", Self.body("google", token: good, nonce: nonce), 401, "provider"),
            ("not a JWT", Self.body(token: "garbage", nonce: nonce), 401, "JWT"),
            ("no nonce", #"{"provider":"apple","idToken":"\#(good)"}"#, 400, "nonce"),
            ("not JSON", "provider=apple", 400, "JSON"),
            ("a number for the token", #"{"provider":"apple","idToken":7,"nonce":"n"}"#, 400, "idToken"),
        ]
        for (what, body, status, reason) in cases {
            let r = try await Self.exchange(f, body)
            #expect(r.status == status, "\(what): \(r.text)")
            #expect(r.json.code == (status == 400 ? "BAD_REQUEST" : "AUTHENTICATION_FAILED"), "\(what): \(r.text)")
            #expect((r.json["reason"]?.string ?? "").contains(reason), "\(what): \(r.text)")
            #expect(!r.text.contains(parts[1].prefix(24)), "\(what): a refusal never quotes the token")
        }
        let noAPIToken = try await Self.exchange(f, Self.body(token: good, nonce: nonce), query: "")
        #expect(noAPIToken.status == 401)
        let production = try await Self.exchange(f, Self.body(token: good, nonce: nonce), query: "ckAPIToken=\(APIFixture.encode(f.prodToken))")
        #expect(production.status == 401, "a Production API token does not sign in to Development")
        #expect(try Self.userCount(f) == before)

        // The good token signs in once; the same token (its nonce) again is refused.
        #expect(try await Self.exchange(f, Self.body(token: good, nonce: nonce)).status == 200)
        let replay = try await Self.exchange(f, Self.body(token: good, nonce: nonce))
        #expect(replay.status == 401 && (replay.json["reason"]?.string ?? "").contains("already"), "\(replay.text)")
        #expect(try Self.userCount(f) == before + 1)
    }

    /// A provider that rotates its keys: the new key ID is fetched at once; a burst of unknown key IDs fetches the
    /// keys at most once a minute, not once per token.
    @Test func rotatedKeysAreFetchedOnceAndUnknownKeyIDsCannotMakeUsFetchAgain() async throws {
        guard let (f, idp) = try await Self.setUp() else { return }
        defer { Task { await idp.stop() } }
        #expect(try await Self.exchange(f, Self.body(token: idp.token(subject: "004.r", nonce: "a"), nonce: "a")).status == 200)
        #expect(idp.keyFetches == 1)
        #expect(try await Self.exchange(f, Self.body(token: idp.token(subject: "004.r", nonce: "b"), nonce: "b")).status == 200)
        #expect(idp.keyFetches == 1, "the keys are cached")
        idp.rotate()
        #expect(try await Self.exchange(f, Self.body(token: idp.token(subject: "004.r", nonce: "c"), nonce: "c")).status == 200)
        #expect(idp.keyFetches == 2, "a new key ID fetches the keys again")
        // Within the minute: tokens of keys nobody published (unknown key IDs) are refused without a fetch each.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<20 {
                group.addTask { try await Self.exchange(f, Self.body(token: idp.token(subject: "004.r", nonce: "x\(i)", keys: IdentityKeyPair()), nonce: "x\(i)")).status }
            }
            for try await status in group { #expect(status == 401) }
        }
        #expect(idp.keyFetches == 2)
    }

    /// A verified email that is another account's never signs in to it; an unverified one is nobody's email.
    @Test func anEmailNeverTakesOverAnAccount() async throws {
        guard let (f, idp) = try await Self.setUp() else { return }
        defer { Task { await idp.stop() } }
        let owner = try await BlockingWork.shared.run {
            try f.app.store.accounts.createUser(container: f.container, email: "owner@example.com", password: "a long password")
        }
        let takeover = try await Self.exchange(f, Self.body(token: idp.token(subject: "005.t", nonce: "t", email: "OWNER@example.com"), nonce: "t"))
        #expect(takeover.status == 401 && takeover.json.code == "AUTHENTICATION_FAILED", "\(takeover.text)")
        #expect(try f.app.store.identities.issuers(of: owner.userRecordName, container: f.container).isEmpty, "nothing was linked")
        let unverified = idp.token(subject: "005.u", nonce: "u", ["email": "owner@example.com", "email_verified": .bool(false)])
        let other = try await Self.exchange(f, Self.body(token: unverified, nonce: "u"))
        #expect(other.status == 200 && other.json["userRecordName"]?.string != owner.userRecordName, "\(other.text)")
        let made = try #require(try f.app.store.accounts.user(container: f.container, userRecordName: other.json["userRecordName"]?.string ?? ""))
        #expect(made.email == "", "an unverified email is not the account's")
        #expect(try f.app.store.accounts.user(container: f.container, email: "owner@example.com")?.userRecordName == owner.userRecordName)
    }

    /// An app links a provider to the account its user is signed in to by sending the account's session with the
    /// exchange: from then on the provider's token alone signs in to it. A session that is not live, or an identity
    /// that is another user's, links nothing.
    @Test func aSignedInAccountLinksAProviderWithItsSession() async throws {
        guard let (f, idp) = try await Self.setUp() else { return }
        defer { Task { await idp.stop() } }
        let (owner, session) = try await BlockingWork.shared.run {
            let u = try f.app.store.accounts.createUser(container: f.container, email: "owner@example.com", password: "a long password")
            return (u, try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development,
                                                                    userRecordName: u.userRecordName, lifetime: 60_000))
        }
        let token = { (n: String) in idp.token(subject: "006.l", nonce: n, email: "owner@example.com") }
        let stale = try await Self.exchange(f, Self.body(token: token("a"), nonce: "a"),
                                            query: "ckAPIToken=\(APIFixture.encode(f.devToken))&ckWebAuthToken=not-a-session")
        #expect(stale.status == 401 && stale.json.code == "AUTHENTICATION_FAILED", "\(stale.text)")
        let linked = try await Self.exchange(f, Self.body(token: token("b"), nonce: "b"),
                                             query: "ckAPIToken=\(APIFixture.encode(f.devToken))&ckWebAuthToken=\(APIFixture.encode(session))")
        #expect(linked.status == 200 && linked.json["userRecordName"]?.string == owner.userRecordName, "\(linked.text)")
        let alone = try await Self.exchange(f, Self.body(token: token("c"), nonce: "c"))
        #expect(alone.json["userRecordName"]?.string == owner.userRecordName, "\(alone.text)")
        // Another signed-in user cannot take the identity over.
        let (_, otherSession) = try await BlockingWork.shared.run {
            let u = try f.app.store.accounts.createUser(container: f.container, email: "other@example.com", password: "a long password")
            return (u, try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development,
                                                                    userRecordName: u.userRecordName, lifetime: 60_000))
        }
        let taken = try await Self.exchange(f, Self.body(token: token("d"), nonce: "d"),
                                            query: "ckAPIToken=\(APIFixture.encode(f.devToken))&ckWebAuthToken=\(APIFixture.encode(otherSession))")
        #expect(taken.status == 401 && taken.text.contains("another account"), "\(taken.text)")
        #expect(try f.app.store.identities.issuers(of: owner.userRecordName, container: f.container) == [idp.issuer])
        #expect(try Self.userCount(f) == 2)
    }

    /// Bad tokens count in the sign-in throttle: after a few, the address waits, even with a good token.
    @Test func badTokensAreThrottled() async throws {
        guard let (f, idp) = try await Self.setUp(throttle: SignInThrottle.Policy(freeFailures: 3, baseDelay: .seconds(30))) else { return }
        defer { Task { await idp.stop() } }
        for i in 0..<3 {
            let r = try await Self.exchange(f, Self.body(token: idp.token(subject: "006", nonce: "n\(i)", alg: "none"), nonce: "n\(i)"))
            #expect(r.status == 401)
        }
        let waited = try await Self.exchange(f, Self.body(token: idp.token(subject: "006", nonce: "ok"), nonce: "ok"))
        #expect(waited.status == 503 && waited.json.code == "THROTTLED", "\(waited.text)")
        #expect(try Self.userCount(f) == 0, "no account was made")
    }

    /// The operator's choice of sign-up ways: without `provider`, a provider makes no new account (those that exist
    /// still sign in); without `password`, the sign-up form makes none.
    @Test func signUpWaysDecideWhoMayMakeAnAccount() async throws {
        guard let (f, idp) = try await Self.setUp() else { return }
        defer { Task { await idp.stop() } }
        let known = try await Self.exchange(f, Self.body(token: idp.token(subject: "007.known", nonce: "k1"), nonce: "k1"))
        #expect(known.status == 200)
        try f.app.store.accounts.setSignUpWays([.password], container: f.container)
        let stranger = try await Self.exchange(f, Self.body(token: idp.token(subject: "007.new", nonce: "s1"), nonce: "s1"))
        #expect(stranger.status == 401 && (stranger.json["reason"]?.string ?? "").contains("no new accounts"), "\(stranger.text)")
        let again = try await Self.exchange(f, Self.body(token: idp.token(subject: "007.known", nonce: "k2"), nonce: "k2"))
        #expect(again.status == 200 && again.json["userRecordName"] == known.json["userRecordName"])

        try f.app.store.accounts.setSignUpWays([.provider], container: f.container)
        let (status, d) = try await f.authForm("signup", "email=new%40example.com&password=a+long+password")
        #expect(status == 403 && String(decoding: d, as: UTF8.self).contains("does not make new accounts"), "\(String(decoding: d, as: UTF8.self))")
        #expect(try f.app.store.accounts.user(container: f.container, email: "new@example.com") == nil)
    }
}
