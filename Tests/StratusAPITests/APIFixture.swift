import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
import StratusHTTP
import StratusServer
import StratusStore
import StratusTestSupport

/// The store behind a test's server.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// The real server on port 0 with one container, an API token per environment, and two signed-in users.
final class APIFixture: @unchecked Sendable {
    let app: StratusApplication
    let data: URL
    let container = try! ContainerID("iCloud.com.example.API")
    let devToken: String
    let prodToken: String
    let alice: ContainerUser
    let bob: ContainerUser
    let aliceToken: String
    let bobToken: String
    let session = URLSession(configuration: .ephemeral)
    /// Drops the throw-away PostgreSQL database of a fixture on that backend.
    let dropDatabase: (@Sendable () -> Void)?

    /// A fixture on `backend`; nil (with a line that says so) for PostgreSQL when no server is given outside CI.
    static func make(_ backend: Backend, configure: @Sendable (inout ServerConfig) -> Void = { _ in }) async throws -> APIFixture? {
        switch backend {
        case .sqlite: return try await APIFixture(configure: configure)
        case .postgres:
            guard let db = try await TestPostgres.freshDatabase() else {
                #expect(!TestPostgres.required, "STRATUS_TEST_POSTGRES_URL is required here")
                return nil
            }
            return try await APIFixture(postgres: db, configure: configure)
        }
    }

    init(apiBodyLimit: Int = 16 * 1024 * 1024, postgres: (url: String, drop: @Sendable () -> Void)? = nil,
         configure: @Sendable (inout ServerConfig) -> Void = { _ in }) async throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-api-\(UUID().uuidString)")
        dropDatabase = postgres?.drop
        let data = self.data, container = self.container
        var config = ServerConfig(port: 0, dataDirectory: data, apiBodyLimit: apiBodyLimit)
        if let postgres {
            config.databaseURL = postgres.url
            config.databasePoolSize = 6
        }
        // Tests call the store directly from async code too: an fsync per commit there would stall other suites'
        // servers on Swift's few cooperative threads. `.full` is tested by DurabilityTests and the CLI tests.
        config.durability = .relaxed
        configure(&config)
        let configured = config
        // Setup blocks on SQLite: it runs on a thread of its own, not on the cooperative pool other tests' servers need.
        // Users get web auth tokens directly; hashing passwords (PBKDF2, 210k rounds) is left to the tests about it.
        let (app, tokens) = try await BlockingWork.shared.run { () throws -> (StratusApplication, [String]) in
            let app = try StratusApplication(config: configured)
            let store = app.store
            try store.createContainer(container)
            return (app, [
                try store.credentials.createAPIToken(container: container, environment: .development, name: "dev").secret,
                try store.credentials.createAPIToken(container: container, environment: .production, name: "prod").secret,
                try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: APIFixture.aliceUser.userRecordName),
                try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: APIFixture.bobUser.userRecordName),
            ])
        }
        self.app = app
        (devToken, prodToken, aliceToken, bobToken) = (tokens[0], tokens[1], tokens[2], tokens[3])
        alice = APIFixture.aliceUser
        bob = APIFixture.bobUser
        try await app.start()
    }

    static let aliceUser = ContainerUser(userRecordName: "_" + String(repeating: "a1", count: 16), email: "alice@example.com")
    static let bobUser = ContainerUser(userRecordName: "_" + String(repeating: "b2", count: 16), email: "bob@example.com")

    deinit {
        let app = self.app, data = self.data, drop = dropDatabase
        // Its kept-alive connections close now; the server's files close when it stops.
        session.invalidateAndCancel()
        Task { await app.stop(); try? FileManager.default.removeItem(at: data); drop?() }
    }

    struct Reply {
        var status: Int
        var json: JSON
        var headers: [String: String]
        var text: String
    }

    static func encode(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? s
    }

    /// POSTs (or GETs, with no body) to `/database/1/<container>/<env>/<db>/<path>`.
    func call(_ path: String, _ body: String? = nil, db: String = "public", env: String = "development", token: String? = nil,
              user: String? = nil, method: String? = nil, contentType: String = "text/plain", headers: [String: String] = [:],
              rawQuery: String? = nil, rawDevice: Bool = false, session: URLSession? = nil, container other: ContainerID? = nil) async throws -> Reply {
        let container = other ?? self.container
        var q = rawQuery ?? ""
        if rawQuery == nil {
            let t = token ?? (env == "production" ? prodToken : devToken)
            q = "ckAPIToken=\(APIFixture.encode(t))"
            if let user { q += "&ckWebAuthToken=\(APIFixture.encode(user))" }
        }
        let prefix = rawDevice ? "device/1/\(container.rawValue)/\(env)" : "database/1/\(container.rawValue)/\(env)/\(db)"
        var req = URLRequest(url: URL(string: "\(app.url)\(prefix)/\(path)?\(q)")!)
        req.httpMethod = method ?? (body == nil ? "GET" : "POST")
        if let body { req.httpBody = Data(body.utf8); req.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (k, v) in headers { req.setValue(v, forHTTPHeaderField: k) }
        let (d, r) = try await (session ?? self.session).data(for: req)
        let http = r as! HTTPURLResponse
        var h: [String: String] = [:]
        for (k, v) in http.allHeaderFields { h[String(describing: k).lowercased()] = String(describing: v) }
        let json = (try? JSON.parse(d)) ?? .null
        return Reply(status: http.statusCode, json: json, headers: h, text: String(decoding: d, as: UTF8.self))
    }
}

extension APIFixture {
    /// POSTs a form to `/auth/1/<container>/development/<mode>` asking for JSON, as a program's sign-in does.
    func authForm(_ mode: String, _ form: String) async throws -> (status: Int, body: Data) {
        var req = URLRequest(url: URL(string: "\(app.url)auth/1/\(container.rawValue)/development/\(mode)?ckAPIToken=\(devToken)")!)
        req.httpMethod = "POST"
        req.setValue("application/json", forHTTPHeaderField: "Accept")
        req.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        req.httpBody = Data(form.utf8)
        let (data, response) = try await session.data(for: req)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

extension JSON {
    var records: [JSON] { self["records"]?.array ?? [] }
    var code: String? { self["serverErrorCode"]?.string }
    var names: [String] { records.compactMap { $0["recordName"]?.string } }
}
