import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus backup --data DIR --to BACKUP_DIR`: a consistent copy of a data directory, taken while `stratus serve`
/// keeps serving (see `Backup`).
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "backup",
        abstract: "Copy a data directory (databases and assets) into a new backup directory with a checksummed manifest, online.")
    @OptionGroup var options: DataOptions
    @Option(help: "The backup directory to create (it must not exist or be empty).") var to: String

    func run() throws {
        try reportingErrors {
            // PostgreSQL has its own tools for this (pg_dump, base backups, replicas); docs/postgresql.md says how.
            guard options.postgresURL == nil else { throw StratusError.badRequest("backup copies a data directory; back up PostgreSQL with pg_dump or its base backups") }
            let started = Date()
            let manifest = try Backup.create(data: URL(fileURLWithPath: options.data, isDirectory: true), to: URL(fileURLWithPath: to, isDirectory: true)) { file in
                FileHandle.standardError.write(Data("copied \(file)\n".utf8))
            }
            let bytes = manifest.files.reduce(Int64(0)) { $0 + $1.bytes }
            let records = manifest.recordCounts.values.reduce(0, +)
            print("backed up \(manifest.files.count) files (\(bytes) bytes, \(records) records) to \(to) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        }
    }
}
