import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus-bench backup --backend postgres --records N --database-url URL`: the portable backup of a PostgreSQL
/// store (`PortableBackup`) and its restore into another PostgreSQL database, against PostgreSQL's own plain SQL
/// dump of the same schema (`pg_dump`) and the bulk load of that dump (`psql`: COPY, then the same indexes built),
/// in the same run. A writer keeps writing one record per request through the backup; its p99 is reported.
/// - `portable_backup_records_per_s` (baseline: `pg_dump`), `portable_restore_records_per_s` (baseline: `psql` of
///   the dump into an empty database). Asked: ratios ≥ 0.5.
/// - `backup_writer_p99_ms`: the writer's requests during the backup (baseline: the same writer before it).
struct BackupScenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "backup",
                                                    abstract: "The portable backup and restore against pg_dump and a bulk load.")
    @Option(help: "postgres (the portable format is PostgreSQL's backup).") var backend: String = "postgres"
    @Option(help: "How many records.") var records: Int = 1_000_000
    @Option(help: ArgumentHelp("The PostgreSQL database (default: $STRATUS_DATABASE_URL); its cluster also gets two scratch databases.", valueName: "url"))
    var databaseURL: String?

    static let container = "iCloud.com.example.BackupBench"

    func run() async throws {
        guard backend == "postgres", let url = databaseURL ?? ProcessInfo.processInfo.environment["STRATUS_DATABASE_URL"] else {
            throw ValidationError("stratus-bench backup needs --backend postgres and --database-url (scripts/pg-throwaway start --durable makes one)")
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-backup-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let id = try ContainerID(Self.container)
        let store = try ServerStore(databaseURL: url, poolSize: 8)
        defer { store.close() }
        let env: EnvironmentStore
        if try store.containerExists(id), try store.environment(id, .development).records.recordCount() >= records {
            env = try store.environment(id, .development)
        } else {
            if try store.containerExists(id) { try store.deleteContainer(id) }
            try store.createContainer(id)
            try store.lifecycle.importSchema(try SchemaParser.parse(StoreScenario.schema), into: id)
            env = try store.environment(id, .development)
            try BenchRow.load(records, into: env, .publicDatabase, zone: .defaultZone, as: "_bench")
        }
        guard let schema = env.postgresSchema else { throw BenchFailure("not a PostgreSQL store") }

        // The writer, one record per request; its latencies before and during the backup.
        let writer = Writer(env: env)
        let quiet = writer.run(seconds: 3)

        // Stratus's portable backup, with the writer running.
        let backup = root.appendingPathComponent("portable")
        writer.start()
        let t0 = DispatchTime.now().uptimeNanoseconds
        _ = try PortableBackup.create(from: store, to: backup)
        let backupSeconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        let during = writer.stop()

        // pg_dump of the environment's schema (plain SQL: COPY data, then the CREATE INDEX statements).
        let dump = root.appendingPathComponent("dump.sql")
        let t1 = DispatchTime.now().uptimeNanoseconds
        try Self.tool("pg_dump", [url, "--schema=\(schema)", "--no-owner", "-f", dump.path])
        let dumpSeconds = Double(DispatchTime.now().uptimeNanoseconds - t1) / 1e9

        // Restores: the portable backup into one empty database, the dump into another.
        let (restoreURL, dropRestore) = try Self.scratchDatabase(url)
        defer { dropRestore() }
        let t2 = DispatchTime.now().uptimeNanoseconds
        let target = try ServerStore(databaseURL: restoreURL, poolSize: 8)
        _ = try PortableBackup.restore(from: backup, into: target)
        target.close()
        let restoreSeconds = Double(DispatchTime.now().uptimeNanoseconds - t2) / 1e9
        let (loadURL, dropLoad) = try Self.scratchDatabase(url)
        defer { dropLoad() }
        let t3 = DispatchTime.now().uptimeNanoseconds
        try Self.tool("psql", [loadURL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", dump.path])
        let loadSeconds = Double(DispatchTime.now().uptimeNanoseconds - t3) / 1e9

        let n = Double(try env.records.recordCount())
        Figure(scenario: "backup", metric: "portable_backup_records_per_s", value: n / backupSeconds, unit: "records/s",
               baseline: n / dumpSeconds).print()
        Figure(scenario: "backup", metric: "portable_restore_records_per_s", value: n / restoreSeconds,
               unit: "records/s", baseline: n / loadSeconds).print()
        Figure(scenario: "backup", metric: "backup_writer_p99_ms", value: percentile(during, 0.99), unit: "ms",
               baseline: percentile(quiet, 0.99)).print()
        Figure(scenario: "backup", metric: "backup_peak_rss_mb", value: peakRSSMegabytes(), unit: "MB").print()
    }

    /// One writer thread creating one record per request in its own zone.
    final class Writer: @unchecked Sendable {
        let env: EnvironmentStore
        private let lock = NSLock()
        private var latencies: [Double] = []
        private var running = false
        private var thread: Thread?
        private var n = 0

        init(env: EnvironmentStore) { self.env = env }

        func start() {
            lock.withLock { running = true; latencies = [] }
            let t = Thread { [self] in
                while lock.withLock({ running }) { writeOne() }
            }
            thread = t
            t.start()
        }

        func stop() -> [Double] {
            lock.withLock { running = false }
            while !(thread?.isFinished ?? true) { usleep(5_000) }
            return lock.withLock { latencies }
        }

        func run(seconds: Double) -> [Double] {
            start()
            usleep(useconds_t(seconds * 1_000_000))
            return stop()
        }

        private func writeOne() {
            n += 1
            let t0 = DispatchTime.now().uptimeNanoseconds
            _ = try? env.records.modify([RecordOperation(.create,
                                                         StoredRecord(recordName: "writer-\(UUID().uuidString)",
                                                                      recordType: "Bench",
                                                                                fields: ["title": .string("w\(n)")]))],
                                        in: .publicDatabase, actor: RequestActor(userRecordName: "_bench"))
            let ms = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
            lock.withLock { latencies.append(ms) }
        }
    }

    static func tool(_ name: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [name] + arguments
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchFailure("\(name) failed (\(p.terminationStatus))") }
    }

    /// An empty database on the same cluster, and how to drop it.
    static func scratchDatabase(_ url: String) throws -> (String, () -> Void) {
        guard let slash = url.lastIndex(of: "/") else { throw BenchFailure("cannot read the database URL") }
        let name = "bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        try tool("psql", [url, "-X", "-q", "-c", "CREATE DATABASE \(name)"])
        return (String(url[...slash]) + name, { try? tool("psql", [url, "-X", "-q", "-c",
                                                                   "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"]) })
    }
}
