import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// `POST /auth/1/{container}/{environment}/token?ckAPIToken=…` with `{"provider", "idToken", "nonce"}` (and, on a
/// first Sign in with Apple, the `givenName` and `familyName` Apple sends once, outside the token): an app that got
/// an identity token from a provider the container trusts trades it for a web auth token,
/// `{"ckWebAuthToken", "userRecordName"}`, as the JSON sign-in answers. The app gave the provider the lowercase hex
/// SHA-256 of its raw nonce and sends the raw one here; a nonce signs in once. The token is checked completely
/// (`IdentityToken`) against the issuer's published keys (`IdentityKeySets`). Refusals are CloudKit's envelope:
/// AUTHENTICATION_FAILED (401), counted in the sign-in throttle with the client's address, or BAD_REQUEST (400) for
/// a body that is not one; neither creates nor links an account, and no token is logged.
///
/// Linking: an identity whose verified email is an existing account's leads nowhere until that account is proven.
/// An app proves it by sending the exchange with the account's live session (`&ckWebAuthToken=…`, as CloudKit
/// requests carry it): an identity that is no one's yet is then linked to the session's user, and both ways lead to
/// that account from then on; an identity that is another user's is refused.
extension CloudKitAPI {
    func registerTokenExchangeRoutes(_ router: inout Router) {
        let api = self
        router.add(.post, "/auth/1/{container}/{environment}/token",
                   bodyLimit: 32 * 1024) { req in try await api.exchangeIdentityToken(req) }
    }

    /// What an exchange asks for.
    private struct ExchangeRequest {
        let provider, idToken, nonce: String
        let givenName, familyName: String?

        init(_ body: Data) throws(StratusError) {
            guard let json = try? JSON.parse(body), json.object != nil else {
                throw .badRequest("the token exchange takes a JSON object: {provider, idToken, nonce}")
            }
            guard let provider = try json.string("provider"), !provider.isEmpty,
                  let idToken = try json.string("idToken"), !idToken.isEmpty,
                  let nonce = try json.string("nonce"), !nonce.isEmpty, nonce.utf8.count <= 1024 else {
                throw .badRequest("the token exchange needs provider, idToken and nonce (the raw nonce, at most 1 KB)")
            }
            (self.provider, self.idToken, self.nonce) = (provider, idToken, nonce)
            givenName = try json.string("givenName")
            familyName = try json.string("familyName")
        }
    }

    func exchangeIdentityToken(_ req: HTTPRequest) async throws -> HTTPResponse {
        let (container, environment) = try target(req)
        let store = self.store
        let secret = req.query("ckAPIToken") ?? ""
        let apiToken = try? await blocking.run { try store.credentials.authenticateAPIToken(secret) }
        guard let apiToken = apiToken ?? nil, apiToken.container == container,
              apiToken.environment == environment else {
            throw StratusError.authenticationFailed(
                "the token exchange needs ckAPIToken, a live API token of this container environment")
        }
        // Failures are judged per client address: a stranger's bad tokens never slow another address's sign-ins.
        let account = "identity:\(container.rawValue):\(req.clientAddress)"
        if case .wait(let seconds) = throttle.check(account: account, address: req.clientAddress) {
            throw StratusError(.throttled, "too many failed sign-ins: wait \(seconds) s", retryAfter: seconds)
        }
        let ask = try ExchangeRequest(req.body)
        do {
            var proven: String?
            if let session = req.query("ckWebAuthToken") {
                guard let user = try await blocking.run({
                    try store.accounts.authenticateWebAuthToken(session, container: container, environment: environment)
                })?.user else {
                    throw StratusError.authenticationFailed("the ckWebAuthToken to link with is not signed in")
                }
                proven = user
            }
            let user = try await signInWithIdentity(ask, container: container, proven: proven)
            let token = try await blocking.run {
                try store.accounts.createWebAuthToken(container: container, environment: environment,
                                                      userRecordName: user.userRecordName,
                                                      lifetime: AccountStore.longSession)
            }
            throttle.succeeded(account: account)
            return json { w in
                w.beginObject()
                w.field("ckWebAuthToken", token)
                w.field("userRecordName", user.userRecordName)
                w.endObject()
            }
        } catch let e as StratusError where e.code == .authenticationFailed {
            throttle.failed(account: account, address: req.clientAddress)
            throw e
        }
    }

    /// The user the exchange's identity token is, once the token is verified and its nonce taken.
    private func signInWithIdentity(_ ask: ExchangeRequest, container: ContainerID,
                                    proven: String?) async throws -> ContainerUser {
        let store = self.store
        let provider = try await blocking.run { try store.identities.provider(ask.provider, container: container) }
        guard let provider else {
            throw StratusError.authenticationFailed(
                "this container signs in with no provider named '\(ask.provider.prefix(64))'")
        }
        let token = try IdentityToken(ask.idToken)
        let keys = try await identityKeys.keys(issuer: provider.issuer, keyID: token.keyID)
        let expected = IdentityToken.Expectations(issuer: provider.issuer, audiences: Set(provider.clientIDs),
                                                  nonce: .hashed(raw: ask.nonce), now: WallClock.nowMillis())
        let claims = try token.verify(keys: keys, expected)
        let expiresAt = token.nonceKeptUntil(expected)
        let nonce = token.claims["nonce"]?.string ?? ""
        return try await blocking.run {
            guard try store.identities.takeNonce(issuer: provider.issuer, nonce: nonce, expiresAt: expiresAt) else {
                throw StratusError.authenticationFailed("this identity token's nonce has signed in already")
            }
            return try store.identities.signIn(claims, container: container, givenName: ask.givenName,
                                               familyName: ask.familyName, proven: proven)
        }
    }
}
