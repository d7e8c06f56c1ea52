import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus migrate --from-data DIR --to postgres://…` (and back with `--from URL --to-data DIR`): copies a
/// whole store into an empty store on the other backend and verifies every table (see `StoreMigration`).
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate",
        abstract: "Copy a data directory into an empty PostgreSQL database, or a PostgreSQL database into an empty data directory, verifying counts and checksums.")
    @Option(help: "The data directory to copy from.") var fromData: String?
    @Option(help: ArgumentHelp("The PostgreSQL database to copy from.", valueName: "url")) var from: String?
    @Option(help: ArgumentHelp("The PostgreSQL database to copy into (it must hold no Stratus data).",
                               valueName: "url")) var to: String?
    @Option(help: "The data directory to copy into (it must not exist or be empty).") var toData: String?

    func validate() throws {
        guard (fromData == nil) != (from == nil) else { throw ValidationError("name one source: --from-data DIR or --from postgres://…") }
        guard (to == nil) != (toData == nil) else { throw ValidationError("name one target: --to postgres://… or --to-data DIR") }
        guard (fromData == nil) != (toData == nil) else { throw ValidationError("migrate copies between the backends: from a data directory to PostgreSQL, or back") }
    }

    func run() throws {
        try reportingErrors {
            let started = Date()
            let source, target: ServerStore
            if let fromData, let to {
                guard FileManager.default.fileExists(atPath: URL(fileURLWithPath: fromData).appendingPathComponent("stratus.sqlite").path) else {
                    throw StratusError.badRequest("\(fromData) is not a Stratus data directory (it has no stratus.sqlite)")
                }
                source = try ServerStore(dataDirectory: URL(fileURLWithPath: fromData, isDirectory: true))
                target = try ServerStore(databaseURL: to, poolSize: 4)
            } else if let from, let toData {
                let dir = URL(fileURLWithPath: toData, isDirectory: true)
                if let entries = try? FileManager.default.contentsOfDirectory(atPath: dir.path), !entries.isEmpty {
                    throw StratusError.badRequest("\(toData) is not empty: migrate into a new directory")
                }
                source = try ServerStore(databaseURL: from, poolSize: 4)
                target = try ServerStore(dataDirectory: dir)
            } else {
                throw StratusError.badRequest("name a source and a target")
            }
            defer { source.close(); target.close() }
            let report = try StoreMigration.copy(from: source,
                                                 to: target) { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
            print("migrated \(report.containers) containers: \(report.records) records, \(report.assets) assets, \(report.rows) rows in \(report.tables) tables; counts and checksums match; \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        }
    }
}
