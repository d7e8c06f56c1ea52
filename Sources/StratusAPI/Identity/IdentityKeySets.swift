import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusJSON
import StratusModel
import Synchronization

/// Each issuer's published keys (its JWKS, found through its discovery document), cached: fetched on first use,
/// again after an hour so that a withdrawn key stops verifying, and again when a token names a key ID the cache
/// does not hold (a provider rotated its keys), but that at most once a minute per issuer, however many tokens with
/// unknown key IDs arrive. Requests waiting for the same issuer share one fetch. When a fetch fails, the keys held
/// before stay in use and none is tried for a minute; with no keys, the sign-in is TRY_AGAIN_LATER (the provider,
/// not the client, is at fault).
final class IdentityKeySets: Sendable {
    /// Sends a request and answers its body; the default asks with URLSession.
    typealias Fetch = @Sendable (URLRequest) async throws -> Data

    /// Where a provider's web sign-in goes, from its discovery document.
    struct Endpoints: Sendable {
        let authorization, token: URL
    }

    static let refetchInterval: Int64 = 60_000
    static let maximumAge: Int64 = 3_600_000
    /// More than any provider's discovery document or key set; a larger answer is refused.
    static let maximumBytes = 256 * 1024

    private struct Entry {
        var keys: [IdentityKey] = []
        var endpoints: Endpoints?
        var fetchedAt: Int64?
        /// When a token's unknown key ID last made us fetch: at most once a minute.
        var unknownKeyFetchAt: Int64?
        /// When a fetch last failed: none again for a minute.
        var failedAt: Int64?
        var fetching: Task<Loaded, any Error>?
    }

    private struct Loaded: Sendable {
        let keys: [IdentityKey]
        let endpoints: Endpoints?
    }

    private let fetch: Fetch
    private let entries = Mutex<[String: Entry]>([:])

    init(fetch: @escaping Fetch = IdentityKeySets.urlSessionFetch) {
        self.fetch = fetch
    }

    /// The issuer's keys that may verify a token naming `keyID`.
    func keys(issuer: String, keyID: String?,
              now: Int64 = WallClock.nowMillis()) async throws(StratusError) -> [IdentityKey] {
        enum Next { case use([IdentityKey]), wait(Task<Loaded, any Error>) }
        let next = entries.withLock { all -> Next in
            var e = all[issuer] ?? Entry()
            if let task = e.fetching { return .wait(task) }
            let fresh = e.fetchedAt.map { now - $0 < Self.maximumAge } ?? false
            let known = keyID.map { id in e.keys.contains { $0.keyID == id } } ?? !e.keys.isEmpty
            if fresh && known { return .use(e.keys) }
            if let failed = e.failedAt, now - failed < Self.refetchInterval { return .use(e.keys) }
            if fresh {
                if let last = e.unknownKeyFetchAt, now - last < Self.refetchInterval { return .use(e.keys) }
                e.unknownKeyFetchAt = now
            }
            let fetch = self.fetch
            let task = Task { try await Self.load(issuer, fetch) }
            e.fetching = task
            all[issuer] = e
            return .wait(task)
        }
        switch next {
        case .use(let keys):
            guard !keys.isEmpty else { throw Self.unavailable }
            return keys
        case .wait(let task):
            let result = await task.result
            return try entries.withLock { all throws(StratusError) -> [IdentityKey] in
                var e = all[issuer] ?? Entry()
                e.fetching = nil
                defer { all[issuer] = e }
                switch result {
                case .success(let loaded):
                    e.keys = loaded.keys
                    e.endpoints = loaded.endpoints
                    e.fetchedAt = now
                    e.failedAt = nil
                    return loaded.keys
                case .failure:
                    e.failedAt = now
                    guard !e.keys.isEmpty else { throw Self.unavailable }
                    return e.keys
                }
            }
        }
    }

    private static let unavailable = StratusError(.tryAgainLater, "the identity provider's keys could not be fetched",
                                                  retryAfter: 60)

    /// The provider's web sign-in endpoints (its keys fetched as `keys` fetches them); TRY_AGAIN_LATER when its
    /// discovery document cannot be read, BAD_REQUEST-free: a provider without them cannot sign in on the web.
    func endpoints(issuer: String) async throws(StratusError) -> Endpoints {
        _ = try await keys(issuer: issuer, keyID: nil)
        guard let endpoints = entries.withLock({ $0[issuer]?.endpoints }) else {
            throw StratusError(.serviceUnavailable,
                               "the identity provider publishes no authorization and token endpoints")
        }
        return endpoints
    }

    /// The discovery document (`{issuer}/.well-known/openid-configuration`), which must name this issuer exactly, then
    /// the key set at its `jwks_uri`.
    private static func load(_ issuer: String, _ fetch: Fetch) async throws -> Loaded {
        guard let discovery = URL(string: issuer + "/.well-known/openid-configuration") else { throw LoadFailure() }
        let document = try JSON.parse(try await fetch(URLRequest(url: discovery)))
        guard document["issuer"]?.string == issuer, let uri = document["jwks_uri"]?.string, let jwks = URL(string: uri),
              IdentityProvider.isFetchable(jwks) else { throw LoadFailure() }
        let keys = IdentityKey.set(try JSON.parse(try await fetch(URLRequest(url: jwks))))
        guard !keys.isEmpty else { throw LoadFailure() }
        let endpoint = { (name: String) in
            document[name]?.string.flatMap(URL.init(string:)).flatMap { IdentityProvider.isFetchable($0) ? $0 : nil }
        }
        let endpoints = endpoint("authorization_endpoint").flatMap { a in
            endpoint("token_endpoint").map { Endpoints(authorization: a, token: $0) }
        }
        return Loaded(keys: keys, endpoints: endpoints)
    }

    private struct LoadFailure: Error {}

    private static let session: URLSession = {
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = 5
        config.timeoutIntervalForResource = 10
        config.urlCache = nil
        config.httpCookieStorage = nil
        return URLSession(configuration: config)
    }()

    static let urlSessionFetch: Fetch = { original in
        guard let url = original.url, IdentityProvider.isFetchable(url) else { throw LoadFailure() }
        var request = original
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200, data.count <= maximumBytes else { throw LoadFailure() }
        return data
    }

    /// Sends a request to a provider (its token endpoint) as the keys are fetched: bounded in time and size.
    func send(_ request: URLRequest) async throws -> Data { try await fetch(request) }
}
