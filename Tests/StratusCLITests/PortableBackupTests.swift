import Foundation
import Synchronization
import Testing
import StratusTestSupport
import StratusModel
@testable import StratusStore

/// `stratus backup --format portable` (PostgreSQL's default) taken while another node keeps writing, restored into a
/// data directory and into another PostgreSQL database: every record acknowledged before the backup began, the
/// API token, the subscription and the asset are in both, and `stratus check` passes on both.
extension PostgresEndToEnd {
    @Suite struct PortableBackupTests {
        static let container = "iCloud.com.example.Portable"
        static let owner = "_" + String(repeating: "e5", count: 16)

        @Test func aBackupFromPostgreSQLUnderWritesRestoresIntoSQLiteAndIntoPostgreSQL() async throws {
            guard TestPostgres.url != nil else { #expect(!TestPostgres.required, "STRATUS_TEST_POSTGRES_URL is required here"); return }
            guard let source = try await TestPostgres.freshDatabase(), let target = try await TestPostgres.freshDatabase() else { return }
            defer { source.drop(); target.drop() }
            let root = Executables.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            let backup = root.appendingPathComponent("backup"), restored = root.appendingPathComponent("restored")
            let id = try ContainerID(Self.container)
            let owner = Self.owner
            let (token, asset, bytes) = try await Executables.offPool { () -> (String, AssetValue, Data) in
                let store = try ServerStore(databaseURL: source.url, poolSize: 2)
                defer { store.close() }
                try store.createContainer(id)
                let token = try store.credentials.createAPIToken(container: id, environment: .development, name: "app").secret
                let env = try store.environment(id, .development)
                let bytes = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
                let asset = try env.assets.uploadAsset(bytes)
                _ = try env.records.modify((0..<300).map { RecordOperation(.create, StoredRecord(recordName: "n\($0)", recordType: "Note", fields: ["title": .string("note \($0)")])) }
                                           + [RecordOperation(.create, StoredRecord(recordName: "photo", recordType: "Photo", fields: ["image": .asset(asset)]))],
                                           in: .publicDatabase, actor: RequestActor(userRecordName: owner))
                try env.zones.createZone(ZoneID(zoneName: "Inbox"), in: .privateDatabase(of: owner))
                try env.subscriptions.saveSubscription("inbox-changes", document: #"{"subscriptionID":"inbox-changes","subscriptionType":"zone","zoneID":{"zoneName":"Inbox"}}"#,
                                                       in: .private, owner: owner)
                return (token, asset, bytes)
            }

            // Another node keeps writing into the user's Inbox while the backup runs.
            let writer = try ServerStore(databaseURL: source.url, poolSize: 2)
            defer { writer.close() }
            let stop = Atomic(false), acked = Mutex<[String]>([])
            let env = try writer.environment(id, .development)
            let thread = Thread {
                var i = 0
                while !stop.load(ordering: .relaxed) {
                    let name = "w\(i)"
                    if (try? env.records.modify([RecordOperation(.create, StoredRecord(recordName: name, recordType: "Note", fields: ["title": .string(name)]))],
                                                in: .privateDatabase(of: owner), zoneID: ZoneID(zoneName: "Inbox"), actor: RequestActor(userRecordName: owner))) != nil {
                        acked.withLock { $0.append(name) }
                    }
                    i += 1
                }
            }
            thread.start()
            while acked.withLock({ $0.count }) < 20 { try await Task.sleep(for: .milliseconds(20)) }
            let before = Set(acked.withLock { $0 })
            let made = try await Executables.run("stratus", ["backup", "--database-url", source.url, "--to", backup.path])
            try await Task.sleep(for: .milliseconds(200))
            stop.store(true, ordering: .relaxed)
            while !thread.isFinished { try await Task.sleep(for: .milliseconds(20)) }
            #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
            #expect(acked.withLock { $0.count } > before.count, "the writer kept writing during the backup")

            let intoSQLite = try await Executables.run("stratus", ["restore", "--from", backup.path, "--data", restored.path])
            #expect(intoSQLite.status == 0, "\(intoSQLite.stdout)\(intoSQLite.stderr)")
            let intoPostgres = try await Executables.run("stratus", ["restore", "--from", backup.path, "--database-url", target.url])
            #expect(intoPostgres.status == 0, "\(intoPostgres.stdout)\(intoPostgres.stderr)")

            let targetURL = target.url
            for name in ["SQLite", "PostgreSQL"] {
                try await Executables.offPool {
                    let store = name == "SQLite" ? try ServerStore(dataDirectory: restored) : try ServerStore(databaseURL: targetURL, poolSize: 2)
                    defer { store.close() }
                    #expect(try store.credentials.authenticateAPIToken(token)?.container == id, "\(name): the API token")
                    let env = try store.environment(id, .development)
                    let notes = try env.records.lookup((0..<300).map { "n\($0)" }, in: .publicDatabase)
                    #expect(notes.allSatisfy { (try? $0.get()) != nil }, "\(name): the public records")
                    let inbox = try env.records.lookup(before.sorted(), in: .privateDatabase(of: owner), zoneID: ZoneID(zoneName: "Inbox"))
                    #expect(inbox.allSatisfy { (try? $0.get()) != nil }, "\(name): every write acknowledged before the backup began")
                    #expect(try env.subscriptions.subscription("inbox-changes", in: .private, owner: owner) != nil, "\(name): the subscription")
                    #expect(env.assets.assetContent(checksum: asset.fileChecksum) == bytes, "\(name): the asset")
                }
            }
            #expect(try await Executables.run("stratus", ["check", "--data", restored.path]).status == 0)
            let checked = try await Executables.run("stratus", ["check", "--database-url", target.url])
            #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        }
    }
}
