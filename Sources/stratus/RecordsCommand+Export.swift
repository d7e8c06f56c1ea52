import ArgumentParser
import Foundation
import StratusAPI
import StratusModel
import StratusStore

extension RecordsCommand {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stream every matching record to standard output, one per line.")
        @OptionGroup var target: Target
        @Option(help: "Only records of this type (needed for CSV).") var type: String?
        @Option(help: "ndjson or csv.") var format: String = "ndjson"
        @Flag(help: "Write ENCRYPTED fields' values too (left out by default: they are the app's secret).") var includeEncrypted = false

        func run() throws {
            try reportingErrors {
                guard let f = RecordExporter.Format(rawValue: format) else { throw StratusError.badRequest("--format must be ndjson or csv") }
                let (env, db) = try target.open(existing: true)
                let out = FileHandle.standardOutput
                let n = try RecordExporter(env: env, database: db, zone: target.zone, type: type, format: f,
                                           includeEncrypted: includeEncrypted).run { try out.write(contentsOf: $0) }
                FileHandle.standardError.write(Data("exported \(n) records\n".utf8))
            }
        }
    }
}
