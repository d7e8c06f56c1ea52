import ArgumentParser
import Foundation
import StratusAPI
import StratusModel
import StratusStore

extension RecordsCommand {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Load NDJSON (or CSV) records in atomic batches, with progress; --resume continues after the last committed line.")
        @OptionGroup var target: Target
        @Option(help: "The NDJSON file (or CSV with --format csv).") var file: String
        @Option(help: "ndjson or csv (a header of recordName, zoneName and fields of --type, as export writes it).") var format: String = "ndjson"
        @Option(help: "The record type of a CSV file's rows.") var type: String?
        @Option(help: "Records per atomic batch (at most 5000); smaller lets a running server's writes in sooner.") var batchSize: Int = 2_000
        @Option(help: "create (an existing record is an error) or upsert (replace it).") var mode: String = "create"
        @Flag(help: "Continue after the last line a previous run of this import committed.") var resume = false

        func run() throws {
            try reportingErrors {
                guard let m = RecordImporter.Mode(rawValue: mode) else { throw StratusError.badRequest("--mode must be create or upsert") }
                let url = URL(fileURLWithPath: file)
                guard FileManager.default.fileExists(atPath: url.path) else { throw StratusError.badRequest("no file \(file)") }
                guard let f = RecordExporter.Format(rawValue: format) else { throw StratusError.badRequest("--format must be ndjson or csv") }
                let (env, db) = try target.open(existing: false)
                var csvType: RecordTypeSchema?
                if f == .csv {
                    guard let type else { throw StratusError.badRequest("CSV import needs --type: its columns are that record type's fields") }
                    guard let t = try env.schema.current().recordType(named: type) else {
                        throw StratusError.badRequest("the \(target.environment) schema has no record type \(type)")
                    }
                    csvType = t
                }
                // Where a run records its last committed line: beside the file, named for this target.
                let state = ImportState(file: url,
                                        target: "\(target.container)/\(target.environment)/\(target.database)/\(target.user ?? "")/\(target.zone ?? "")")
                let skip = resume ? state.committedLines() : 0
                if resume { FileHandle.standardError.write(Data("resuming after line \(skip)\n".utf8)) }
                let bar = ProgressBar()
                do {
                    let n = try RecordImporter(env: env, database: db, zone: target.zone, mode: m, batchSize: batchSize,
                                               csvType: csvType).run(url, skipLines: skip, committed: state.save,
                                                                     progress: bar.show)
                    bar.finish()
                    state.clear()
                    try audited(try target.options.open(), "import records", container: target.container,
                                environment: target.environment,
                                detail: "\(n) records into \(target.database)\(target.zone.map { " zone \($0)" } ?? "")")
                    print("imported \(n) records")
                } catch let e as RecordImporter.LineError {
                    bar.finish()
                    let committed = state.committedLines()
                    FileHandle.standardError.write(Data("error: line \(e.line): \(e.error.reason) (\(e.error.code.rawValue)); nothing of its batch was written; lines up to \(committed) are imported (--resume continues after them)\n".utf8))
                    throw ExitCode(1)
                }
            }
        }
    }
}
