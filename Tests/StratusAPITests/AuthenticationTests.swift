import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore

@Suite struct AuthenticationTests {
    let query = #"{"query":{"recordType":"Note"}}"#

    @Test func apiTokensAreCheckedForContainerEnvironmentAndRevocation() async throws {
        let f = try await APIFixture()
        let missing = try await f.call("records/query", query, rawQuery: "")
        #expect(missing.status == 401 && missing.json.code == "AUTHENTICATION_FAILED")
        #expect(missing.json["uuid"]?.string != nil && missing.json["reason"]?.string?.contains("ckAPIToken") == true)
        let wrong = try await f.call("records/query", query, token: String(repeating: "0", count: 64))
        #expect(wrong.status == 401 && wrong.json.code == "AUTHENTICATION_FAILED")
        let otherEnv = try await f.call("records/query", query, env: "production", token: f.devToken)
        #expect(otherEnv.status == 401)
        // A known token on an empty development database: a bad request for an unknown type, not an auth failure.
        let ok = try await f.call("records/query", query)
        #expect(ok.status == 400 && ok.json.code == "BAD_REQUEST")
        let id = try f.app.store.credentials.apiTokens(container: f.container, environment: .development)[0].id
        try f.app.store.credentials.revokeAPIToken(id: id, container: f.container)
        #expect(try await f.call("records/query", query).status == 401)
    }

    @Test func usersNeedAValidWebAuthToken() async throws {
        let f = try await APIFixture()
        let anonymousPrivate = try await f.call("zones/list", db: "private")
        #expect(anonymousPrivate.status == 421 && anonymousPrivate.json.code == "AUTHENTICATION_REQUIRED")
        #expect(anonymousPrivate.json["redirectURL"]?.string?.contains("/signin") == true)
        let garbage = try await f.call("zones/list", db: "private", user: "not-a-token")
        #expect(garbage.status == 421)
        let caller = try await f.call("users/caller", user: f.aliceToken)
        #expect(caller.status == 200 && caller.json["userRecordName"]?.string == f.alice.userRecordName)
        #expect(caller.headers["x-apple-cloudkit-web-auth-token"] == f.aliceToken)
        // A token of this container does not open another container.
        let other = try ContainerID("iCloud.com.example.Other")
        try f.app.store.createContainer(other)
        let foreign = try f.app.store.accounts.createWebAuthToken(container: other, environment: .development, userRecordName: f.alice.userRecordName)
        #expect(try await f.call("users/caller", user: foreign).status == 421)
    }

    @Test func expiredTokensAreRefusedAndAgingOnesRotate() async throws {
        let f = try await APIFixture()
        let expired = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: f.alice.userRecordName, lifetime: -1)
        #expect(try await f.call("users/caller", user: expired).status == 421)
        let aging = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: f.alice.userRecordName, lifetime: 60_000)
        let r = try await f.call("users/caller", user: aging)
        let fresh = try #require(r.headers["x-apple-cloudkit-web-auth-token"])
        #expect(r.status == 200 && fresh != aging)
        // Both the old and the new token work.
        #expect(try await f.call("users/caller", user: fresh).status == 200)
        #expect(try await f.call("users/caller", user: aging).status == 200)
    }

    /// A body refused before it is read (over 1 MB without a signed-in user) is answered by the CloudKit group's
    /// owner through its CORS middleware: the web app on an allowed origin can read why.
    @Test func aBodyRefusedUnreadCarriesTheGroupsCORSHeaders() async throws {
        let f = try await APIFixture()
        let (_, restricted) = try f.app.store.credentials.createAPIToken(container: f.container, environment: .development, name: "web",
                                                             allowedOrigins: ["https://notes.example.com"])
        let big = #"{"operations":[],"pad":""# + String(repeating: "x", count: 1_200_000) + #""}"#
        let refused = try await f.call("records/modify", big, token: restricted, headers: ["Origin": "https://notes.example.com"])
        #expect(refused.json.code == "AUTHENTICATION_REQUIRED", "\(refused.text.prefix(300))")
        #expect(refused.headers["access-control-allow-origin"] == "https://notes.example.com")
    }

    @Test func corsFollowsTheTokensAllowedOrigins() async throws {
        let f = try await APIFixture()
        let (_, restricted) = try f.app.store.credentials.createAPIToken(container: f.container, environment: .development, name: "web",
                                                             allowedOrigins: ["https://notes.example.com"])
        let allowed = try await f.call("users/caller", token: restricted, user: f.aliceToken, headers: ["Origin": "https://notes.example.com"])
        #expect(allowed.status == 200 && allowed.headers["access-control-allow-origin"] == "https://notes.example.com")
        let refused = try await f.call("users/caller", token: restricted, user: f.aliceToken, headers: ["Origin": "https://evil.example"])
        #expect(refused.status == 401)
        let preflight = try await f.call("records/query", token: restricted, method: "OPTIONS", headers: ["Origin": "https://notes.example.com", "Access-Control-Request-Method": "POST"])
        #expect(preflight.status == 204 && preflight.headers["access-control-allow-methods"]?.contains("POST") == true)
        #expect(try await f.call("records/query", token: restricted, method: "OPTIONS", headers: ["Origin": "https://evil.example"]).status == 403)
        #expect(refused.headers["access-control-allow-origin"] == nil)
        // Exactly: another scheme or port of the same host is another origin.
        #expect(try await f.call("users/caller", token: restricted, user: f.aliceToken, headers: ["Origin": "http://notes.example.com"]).status == 401)
        #expect(try await f.call("users/caller", token: restricted, user: f.aliceToken, headers: ["Origin": "https://notes.example.com:8443"]).status == 401)
    }

    @Test func aTokenWithNoAllowedOriginsServesNoBrowser() async throws {
        // Given the fixture's token, made as `stratus token create` makes it (no allowed origins)
        let f = try await APIFixture()
        // When a page on any origin calls with it, it is refused and cannot read the answer
        let browser = try await f.call("users/caller", user: f.aliceToken, headers: ["Origin": "https://evil.example"])
        #expect(browser.status == 401 && browser.headers["access-control-allow-origin"] == nil)
        let preflight = try await f.call("records/query", method: "OPTIONS", headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "POST"])
        #expect(preflight.status == 403 && preflight.headers["access-control-allow-origin"] == nil)
        // while a server or script (no Origin) uses it as before
        #expect(try await f.call("users/caller", user: f.aliceToken).status == 200)
    }
}
