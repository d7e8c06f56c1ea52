import ArgumentParser
import Foundation
import StratusAPI
import StratusModel
import StratusStore

/// `stratus records export|import`: records in and out in bulk, as NDJSON (CloudKit-shaped record objects, one per
/// line) or CSV (one record type, a column per field).
struct RecordsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "records",
                                                    abstract: "Export and import records in bulk (NDJSON or CSV).",
                                                    subcommands: [Export.self, Import.self])
}
