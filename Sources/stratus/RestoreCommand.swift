import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus restore --from BACKUP_DIR --data NEW_DIR`: checks a backup against its manifest and rebuilds a data
/// directory from it; refuses a non-empty target.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "restore",
        abstract: "Check a backup's files against its manifest and rebuild a data directory from it (never over a non-empty one).")
    @Option(help: "The backup directory.") var from: String
    @Option(help: "The data directory to create (it must not exist or be empty).") var data: String

    func run() throws {
        try reportingErrors {
            let manifest = try Backup.restore(from: URL(fileURLWithPath: from, isDirectory: true), to: URL(fileURLWithPath: data, isDirectory: true))
            let records = manifest.recordCounts.values.reduce(0, +)
            print("restored \(manifest.files.count) files (\(records) records, backup of \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(manifest.takenAt) / 1000)))) into \(data)")
        }
    }
}
