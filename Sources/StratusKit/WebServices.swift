import Crypto
import Foundation
import StratusJSON
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One container environment's connection to CloudKit Web Services: builds each URL, authenticates it (API token
/// and web auth token in the query, or a server-to-server signature), sends it with a time limit, keeps the
/// rotated web auth token the server hands back, and turns every failure into a `CKError` — an error envelope,
/// a 5xx without one, an unreadable answer, a dropped connection or a timeout.
final class WebServices: @unchecked Sendable {
    let configuration: CKContainer.Configuration
    let containerIdentifier: String
    let session: URLSession
    let assets: AssetCache
    private let lock = NSLock()
    private var webAuthToken: String?
    /// Whether `CKAccountChanged` was posted for this token's end (once: every later request fails the same way).
    private var signedOutPosted = false

    init(containerIdentifier: String, configuration: CKContainer.Configuration) {
        self.containerIdentifier = containerIdentifier
        self.configuration = configuration
        let c = URLSessionConfiguration.ephemeral
        c.timeoutIntervalForRequest = configuration.timeoutIntervalForRequest
        c.timeoutIntervalForResource = max(configuration.timeoutIntervalForRequest * 5, 300)
        c.httpMaximumConnectionsPerHost = 8
        c.urlCache = nil
        session = URLSession(configuration: c)
        assets = AssetCache()
        if case .webAuthToken(let t) = configuration.credentials { webAuthToken = t }
    }

    /// The current web auth token (rotated by the server past half its life).
    var currentWebAuthToken: String? {
        lock.lock()
        defer { lock.unlock() }
        return webAuthToken
    }

    /// `/database/1/{container}/{environment}/{scope}/{action}` with a JSON body (POST) or none (GET).
    func database(_ scope: CKDatabase.Scope, _ action: String, _ body: WireObject?) async throws -> WireObject {
        try await send(path: "/database/1/\(containerIdentifier)/\(configuration.environment.rawValue)/\(scope.pathName)/\(action)", body: body)
    }

    func url(path: String, extraQuery: [URLQueryItem] = []) throws -> URL {
        guard var parts = URLComponents(url: configuration.serverURL, resolvingAgainstBaseURL: false) else {
            throw CKError.make(.badContainer, "the server URL \(configuration.serverURL) is not a URL")
        }
        parts.path = parts.path.hasSuffix("/") ? String(parts.path.dropLast()) + path : parts.path + path
        var items = extraQuery
        if let t = configuration.apiToken { items.append(URLQueryItem(name: "ckAPIToken", value: t)) }
        if let w = currentWebAuthToken { items.append(URLQueryItem(name: "ckWebAuthToken", value: w)) }
        parts.queryItems = items.isEmpty ? nil : items
        // "+" in a token would read as a space.
        parts.percentEncodedQuery = parts.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let u = parts.url else { throw CKError.make(.badContainer, "cannot build a URL for \(path)") }
        return u
    }

    /// Sends one request and reads its JSON object answer.
    func send(path: String, body: WireObject?) async throws -> WireObject {
        if let problem = configuration.problem { throw CKError.make(.badContainer, problem) }
        var req = URLRequest(url: try url(path: path))
        req.timeoutInterval = configuration.timeoutIntervalForRequest
        req.setValue(RecordCoder.datesHeader.1, forHTTPHeaderField: RecordCoder.datesHeader.0)
        var data = Data()
        if let body {
            req.httpMethod = "POST"
            var writer = JSONWriter(capacity: 1024)
            writer.value(.object(body), sortedKeys: false)
            data = writer.data
            req.httpBody = data
            req.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else {
            req.httpMethod = "GET"
        }
        if case .serverToServerKey(let keyID, let pem) = configuration.credentials {
            try sign(&req, path: path, body: data, keyID: keyID, pem: pem)
        }
        let (answer, response) = try await perform(req)
        return try read(answer, response)
    }

    /// Runs a request, with transport failures as CloudKit's network errors.
    func perform(_ req: URLRequest) async throws -> (Data, HTTPURLResponse) {
        do {
            try Task.checkCancellation()
            let (data, response) = try await DataTaskRunner.data(for: req, in: session)
            guard let http = response as? HTTPURLResponse else { throw CKError.make(.networkFailure, "no HTTP answer") }
            return (data, http)
        } catch let e as CKError {
            throw e
        } catch is CancellationError {
            throw CKError.make(.operationCancelled, "the request was cancelled")
        } catch let e as URLError {
            switch e.code {
            case .cancelled: throw CKError.make(.operationCancelled, "the request was cancelled")
            case .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed:
                throw CKError.make(.networkUnavailable,
                                   "cannot reach \(configuration.serverURL.host ?? "the server"): \(e.localizedDescription)")
            default:
                throw CKError.make(.networkFailure, "the connection failed: \(e.localizedDescription)")
            }
        } catch {
            throw CKError.make(.networkFailure, "the connection failed: \(error)")
        }
    }

    /// A 2xx answer's JSON object, or the CloudKit error the answer describes.
    func read(_ data: Data, _ http: HTTPURLResponse) throws -> WireObject {
        if let rotated = http.value(forHTTPHeaderField: "X-Apple-CloudKit-Web-Auth-Token"), !rotated.isEmpty {
            lock.lock()
            webAuthToken = rotated
            lock.unlock()
        }
        let object = JSON(parsing: data)?.object
        if (200..<300).contains(http.statusCode) {
            guard let object else { throw CKError.make(.serverResponseLost,
                                                       "the server's answer is not a JSON object") }
            return object
        }
        var retry: [String: Any] = [:]
        if let r = http.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init) { retry[CKErrorRetryAfterKey] = NSNumber(value: r) }
        if let object, object["serverErrorCode"]?.string != nil {
            var e = CKError.from(server: object, scope: .private, zoneID: .default)
            if e.code == .notAuthenticated { signedOut() }
            if e.retryAfterSeconds == nil, !retry.isEmpty { e = CKError(e.code, userInfo: e.userInfo.merging(retry) { a,
                    _ in a }) }
            throw e
        }
        switch http.statusCode {
        case 429: throw CKError.make(.requestRateLimited, "the server is rate-limiting requests (HTTP 429)", retry)
        // libcurl (URLSession on Linux) resends a request whose kept-alive connection was dropped unanswered, without
        // its body; the server then times it out. The request may or may not have been carried out: a network failure.
        case 408: throw CKError.make(.networkFailure,
                                     "the request timed out at the server (HTTP 408): it may or may not have been carried out")
        case 401, 421:
            signedOut()
            throw CKError.make(.notAuthenticated, "not authenticated (HTTP \(http.statusCode))")
        case 403: throw CKError.make(.permissionFailure, "permission denied (HTTP 403)")
        case 404: throw CKError.make(.unknownItem, "not found (HTTP 404)")
        case 413: throw CKError.make(.limitExceeded, "the request is too large (HTTP 413)")
        case 500..<600: throw CKError.make(.serviceUnavailable, "the server is unavailable (HTTP \(http.statusCode))",
                                           retry)
        default: throw CKError.make(.serverRejectedRequest, "the server refused the request (HTTP \(http.statusCode))")
        }
    }

    /// The user this container acted for is no longer signed in (the token expired, was revoked, or the app signed
    /// out): the account changed, as `CKAccountChanged` tells apps, once.
    func signedOut() {
        lock.lock()
        let post = webAuthToken != nil && !signedOutPosted
        signedOutPosted = true
        lock.unlock()
        if post { NotificationCenter.default.post(name: .CKAccountChanged, object: nil) }
    }

    /// The CloudKit error a non-2xx answer describes.
    func readError(_ data: Data, status: Int) throws -> CKError {
        guard let url = URL(string: "http://error.invalid"), let http = HTTPURLResponse(url: url, statusCode: status,
                httpVersion: nil, headerFields: nil) else {
            return CKError.make(.serverRejectedRequest, "HTTP \(status)")
        }
        do {
            _ = try read(data, http)
            return CKError.make(.serverRejectedRequest, "HTTP \(status)")
        } catch let e as CKError {
            return e
        }
    }

    /// CloudKit's server-to-server signature: ECDSA P-256 over `date:base64(sha256(body)):path`.
    func sign(_ req: inout URLRequest, path: String, body: Data, keyID: String, pem: String) throws {
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
            throw CKError.make(.badContainer, "the server-to-server private key is not an EC P-256 key in PEM")
        }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        let date = f.string(from: Date())
        let hash = Data(SHA256.hash(data: body)).base64EncodedString()
        let signed = req.url.flatMap { URLComponents(url: $0,
                                                     resolvingAgainstBaseURL: false)?.percentEncodedPath } ?? path
        guard let signature = try? key.signature(for: Data("\(date):\(hash):\(signed)".utf8)) else {
            throw CKError.make(.internalError, "could not sign the request")
        }
        req.setValue(keyID, forHTTPHeaderField: "X-Apple-CloudKit-Request-KeyID")
        req.setValue(date, forHTTPHeaderField: "X-Apple-CloudKit-Request-ISO8601Date")
        req.setValue(signature.derRepresentation.base64EncodedString(),
                     forHTTPHeaderField: "X-Apple-CloudKit-Request-SignatureV1")
    }
}
