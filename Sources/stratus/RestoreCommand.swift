import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus restore --from BACKUP_DIR --data NEW_DIR`: checks a backup against its manifest and rebuilds a data
/// directory from it; refuses a non-empty target. `stratus restore --container C --environment E --snapshot ID`:
/// brings an environment back to a snapshot (see `stratus snapshot`).
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "restore",
        abstract: "Rebuild a data directory from a backup (--from, --data), or bring an environment back to a snapshot (--container, --environment, --snapshot).")
    @Option(help: "The backup directory.") var from: String?
    @Option(help: "The data directory: to create from a backup (it must not exist or be empty), or that holds the snapshot.") var data: String?
    @Option(help: ArgumentHelp("Restore the backup into this PostgreSQL database instead (it must hold no Stratus data yet).", valueName: "url"))
    var databaseURL: String?
    @Option(help: "With --snapshot: the container.") var container: String?
    @Option(help: "With --snapshot: development or production.") var environment: String?
    @Option(help: "The id `stratus snapshot` printed.") var snapshot: String?
    @Flag(help: "Allow a snapshot restore of Production: it replaces real users' data.") var allowProductionAdmin = false

    func run() throws {
        try reportingErrors {
            if let snapshot {
                guard let container, let environment else { throw StratusError.badRequest("a snapshot restore names --container and --environment") }
                let store = try ServerStore(dataDirectory: URL(fileURLWithPath: data ?? "./data"))
                try store.lifecycle.restore(try ContainerID(container), try ContainerEnvironment(parsing: environment),
                                            snapshot: snapshot, allowProduction: allowProductionAdmin)
                try audited(store, "restore snapshot", container: container, environment: environment, detail: snapshot)
                print("restored \(container) (\(environment)) to snapshot \(snapshot)")
                return
            }
            if let from, let databaseURL {
                let store = try ServerStore(databaseURL: databaseURL)
                defer { store.close() }
                let manifest = try PortableBackup.restore(from: URL(fileURLWithPath: from, isDirectory: true),
                                                          into: store) { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
                let records = manifest.recordCounts.values.reduce(0, +)
                print("restored \(records) records (backup of \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(manifest.takenAt) / 1000)))) into PostgreSQL")
                return
            }
            guard let from, let data else { throw StratusError.badRequest("a backup restore names --from BACKUP_DIR and --data NEW_DIR (or --database-url URL)") }
            let manifest = try DataDirectoryRestore.restore(from: URL(fileURLWithPath: from, isDirectory: true),
                                                            to: URL(fileURLWithPath: data, isDirectory: true)) {
                FileHandle.standardError.write(Data("\($0)\n".utf8))
            }
            let records = manifest.recordCounts.values.reduce(0, +)
            print("restored \(records) records (backup of \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(manifest.takenAt) / 1000)))) into \(data)")
        }
    }
}
