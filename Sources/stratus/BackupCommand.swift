import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus backup --data DIR --to BACKUP_DIR`: a consistent copy of a data directory, taken while `stratus serve`
/// keeps serving (see `Backup`). `--format portable` (the default on PostgreSQL): a logical copy of the whole store
/// from one snapshot, from either engine, that restores into either (see `PortableBackup`).
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "backup",
        abstract: "Copy a store (databases and assets) into a new backup directory with a checksummed manifest, online.")
    @OptionGroup var options: DataOptions
    @Option(help: "The backup directory to create (it must not exist or be empty).") var to: String
    @Option(help: "directory (SQLite's files as they are; the default there) or portable (a logical copy that restores into either engine; the default on PostgreSQL).")
    var format: String?

    func run() throws {
        try reportingErrors {
            let chosen = format ?? (options.postgresURL == nil ? "directory" : "portable")
            guard ["directory",
                   "portable"].contains(chosen) else { throw StratusError.badRequest("--format is directory or portable") }
            guard chosen == "portable" || options.postgresURL == nil else { throw StratusError.badRequest("a PostgreSQL store is backed up with --format portable") }
            let portable = chosen == "portable"
            let started = Date()
            let destination = URL(fileURLWithPath: to, isDirectory: true)
            let note: (String) -> Void = { line in FileHandle.standardError.write(Data("\(line)\n".utf8)) }
            let manifest: BackupManifest
            if portable {
                let store = try options.open()
                defer { store.close() }
                manifest = try PortableBackup.create(from: store, to: destination, progress: note)
            } else {
                manifest = try Backup.create(data: URL(fileURLWithPath: options.data, isDirectory: true),
                                             to: destination) { note("copied \($0)") }
            }
            let bytes = manifest.files.reduce(Int64(0)) { $0 + $1.bytes }
            let records = manifest.recordCounts.values.reduce(0, +)
            print("backed up \(manifest.files.count) files (\(bytes) bytes, \(records) records) to \(to) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        }
    }
}
