import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// A fresh data directory with one container; removed when the test ends.
final class Fixture: @unchecked Sendable {
    let directory: URL
    let store: ServerStore
    let container: ContainerID
    let dev: EnvironmentStore
    let prod: EnvironmentStore

    static let alice = RequestActor(userRecordName: "_" + String(repeating: "a", count: 32))
    static let bob = RequestActor(userRecordName: "_" + String(repeating: "b", count: 32))
    let pub = DatabaseID.publicDatabase
    let alicePrivate = DatabaseID.privateDatabase(of: Fixture.alice.userRecordName)

    /// The throw-away PostgreSQL database of a fixture on that backend (dropped with it).
    private var postgres: (url: String, drop: @Sendable () -> Void)?
    /// Its URL, for a second node on the same database.
    var postgresURL: String? { postgres?.url }

    /// A fixture on `backend`; nil (with a line that says so) for PostgreSQL when no server is given outside CI.
    static func make(_ backend: Backend, schema: String? = nil) throws -> Fixture? {
        switch backend {
        case .sqlite: return try Fixture(schema: schema)
        case .postgres:
            guard let db = try TestPostgres.freshDatabaseBlocking() else {
                #expect(!TestPostgres.required, "STRATUS_TEST_POSTGRES_URL is required here")
                return nil
            }
            return try Fixture(schema: schema, postgres: db)
        }
    }

    /// Runs `body` with a fixture on `backend`, on a thread of its own: store calls block their thread (on
    /// PostgreSQL, for network round trips), and Swift's few cooperative threads are what other suites' servers run on.
    static func with(_ backend: Backend, schema: String? = nil, _ body: @escaping @Sendable (Fixture) throws -> Void) async throws {
        try await offPool {
            guard let f = try Fixture.make(backend, schema: schema) else { return }
            try body(f)
        }
    }

    init(schema: String? = nil, postgres: (url: String, drop: @Sendable () -> Void)? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-test-\(UUID().uuidString)")
        self.postgres = postgres
        if let postgres {
            store = try ServerStore(databaseURL: postgres.url, poolSize: 4)
        } else {
            // The store tests are synchronous and run on Swift's few cooperative threads: syncing every commit to disk there
            // (what `.full` does) starves the other suites' servers. Durability itself is tested in DurabilityTests.
            store = try ServerStore(dataDirectory: directory, durability: .relaxed)
        }
        container = try ContainerID("iCloud.com.example.Tests")
        try store.createContainer(container)
        dev = try store.environment(container, .development)
        prod = try store.environment(container, .production)
        if let schema { try store.lifecycle.importSchema(try SchemaParser.parse(schema), into: container) }
    }

    /// Forgets that the environment's schema step `name` ran, so that the next open runs it again (a test puts the
    /// data back as the release before it wrote them first).
    static func forgetMigration(_ name: String, _ s: any SQLSession) throws {
        switch s.dialect {
        case .sqlite: try s.execute("DELETE FROM grdb_migrations WHERE identifier = ?", [.text(name)])
        case .postgres: try s.execute("DELETE FROM schema_migrations WHERE name = ?", [.text(name)])
        }
    }

    /// The same data opened by a new store, as after a restart (this fixture's store is closed first).
    func reopen() throws -> (store: ServerStore, dev: EnvironmentStore) {
        store.close()
        let again = try postgres.map { try ServerStore(databaseURL: $0.url, poolSize: 4) } ?? ServerStore(dataDirectory: directory, durability: .relaxed)
        return (again, try again.environment(container, .development))
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
        if let postgres {
            store.close()
            postgres.drop()
        }
    }

    /// Saves records in the public default zone, failing the test on any per-record error.
    @discardableResult
    func save(_ records: [StoredRecord], in env: EnvironmentStore? = nil, op: OperationType = .create,
              database: DatabaseID? = nil, zone: ZoneID = .defaultZone, actor: RequestActor = Fixture.alice) throws -> [StoredRecord] {
        var out: [StoredRecord] = []
        for chunk in stride(from: 0, to: records.count, by: 200).map({ Array(records[$0..<min($0 + 200, records.count)]) }) {
            let results = try (env ?? dev).records.modify(chunk.map { RecordOperation(op, $0) }, in: database ?? pub, zoneID: zone, actor: actor)
            for r in results {
                switch r {
                case .saved(let rec): out.append(rec)
                case .failed(let e): throw e
                case .deleted, .savedShare: break
                }
            }
        }
        return out
    }

    func one(_ op: OperationType, _ record: StoredRecord, in env: EnvironmentStore? = nil, database: DatabaseID? = nil,
             zone: ZoneID = .defaultZone, actor: RequestActor = Fixture.alice) throws -> ModifyResult {
        try (env ?? dev).records.modify([RecordOperation(op, record)], in: database ?? pub, zoneID: zone, actor: actor)[0]
    }
}

func note(_ name: String, _ fields: RecordFields = [:], tag: String? = nil) -> StoredRecord {
    StoredRecord(recordName: name, recordType: "Note", recordChangeTag: tag, fields: fields)
}

/// Asserts that `body` throws a `StratusError` with `code`, and returns it for further checks.
@discardableResult
func expectError<T>(_ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> StratusError? {
    do {
        _ = try body()
        Issue.record("expected \(code.rawValue), got success", sourceLocation: sourceLocation)
    } catch let e as StratusError {
        #expect(e.code == code, "\(e)", sourceLocation: sourceLocation)
        return e
    } catch {
        Issue.record("expected StratusError \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

extension ModifyResult {
    var code: ErrorCode? { error?.code }
}
