import Foundation
import StratusKit
import StratusModel
import StratusServer
import StratusHTTP
import StratusStore
import StratusTestSupport
import Testing

/// The storage engine a test's server runs on.
enum KitBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A real `stratus serve` on port 0 (in this process) with one container, a Development API token and two
/// signed-in users — and StratusKit containers configured for each, as an app would be.
final class KitFixture: @unchecked Sendable {
    let app: StratusApplication
    let data: URL
    let container = try! ContainerID("iCloud.com.example.Kit")
    let apiToken: String
    let aliceToken: String
    let bobToken: String
    static let alice = ContainerUser(userRecordName: "_" + String(repeating: "a1", count: 16), email: "alice@example.com", firstName: "Alice", lastName: "Able")
    static let bob = ContainerUser(userRecordName: "_" + String(repeating: "b2", count: 16), email: "bob@example.com", firstName: "Bob", lastName: "Baker")

    /// Drops the throw-away PostgreSQL database of a fixture on that backend.
    private var dropDatabase: (@Sendable () -> Void)?

    /// A fixture on `backend`; nil (with a line that says so) for PostgreSQL when no server is given outside CI.
    static func make(_ backend: KitBackend, configure: @Sendable (inout ServerConfig) -> Void = { _ in }) async throws -> KitFixture? {
        switch backend {
        case .sqlite: return try await KitFixture(configure: configure)
        case .postgres:
            guard let db = try await TestPostgres.freshDatabase() else {
                #expect(!TestPostgres.required, "STRATUS_TEST_POSTGRES_URL is required here")
                return nil
            }
            let f = try await KitFixture { config in
                config.databaseURL = db.url
                config.databasePoolSize = 6
                configure(&config)
            }
            f.dropDatabase = db.drop
            return f
        }
    }

    init(configure: @Sendable (inout ServerConfig) -> Void = { _ in }) async throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-kit-\(UUID().uuidString)")
        var config = ServerConfig(port: 0, dataDirectory: data)
        config.durability = .relaxed
        configure(&config)
        let configured = config, container = self.container
        let (app, tokens) = try await BlockingWork.shared.run { () throws -> (StratusApplication, [String]) in
            let app = try StratusApplication(config: configured)
            let store = app.store
            try store.createContainer(container)
            return (app, [
                try store.credentials.createAPIToken(container: container, environment: .development, name: "kit").secret,
                try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: KitFixture.alice.userRecordName),
                try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: KitFixture.bob.userRecordName),
            ])
        }
        self.app = app
        (apiToken, aliceToken, bobToken) = (tokens[0], tokens[1], tokens[2])
        try await app.start()
    }

    deinit {
        let app = self.app, data = self.data, drop = dropDatabase
        Task { await app.stop(); try? FileManager.default.removeItem(at: data); drop?() }
    }

    var serverURL: URL { URL(string: app.url)! }

    /// CloudKit's own 60 s limit, doubled: when the whole suite starts, dozens of stores are created and migrated
    /// at once on two cores, and an answer that is merely late must not fail a test about something else (tests
    /// of timeouts set their own, shorter limit).
    func configuration(_ credentials: CKContainer.Configuration.Credentials) -> CKContainer.Configuration {
        CKContainer.Configuration(serverURL: serverURL, environment: .development, apiToken: apiToken, credentials: credentials, timeoutIntervalForRequest: 120)
    }

    /// Alice's device.
    func aliceContainer() -> CKContainer { CKContainer(identifier: container.rawValue, configuration: configuration(.webAuthToken(aliceToken))) }
    /// Bob's device.
    func bobContainer() -> CKContainer { CKContainer(identifier: container.rawValue, configuration: configuration(.webAuthToken(bobToken))) }

    /// Runs an operation on a database and waits until it has finished (its completion block ran).
    static func run(_ op: CKDatabaseOperation, on db: CKDatabase) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            op.completionBlock = { c.resume() }
            db.add(op)
        }
    }
}

/// Collects values from operation blocks, which run on the operation's thread.
final class Collected<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ t: T) { lock.lock(); items.append(t); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}
