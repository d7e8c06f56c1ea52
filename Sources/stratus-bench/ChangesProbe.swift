import ArgumentParser
import Foundation
import StratusAPI
import StratusModel
import StratusStore

/// `stratus-bench changes --data DIR` (or `--database-url URL`): the api scenario's change feed in process, without
/// HTTP: the store
/// alone (rows read and decoded, then dropped) and with the JSON the API writes, to see which side costs what.
struct ChangesProbe: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "changes",
                                                    abstract: "Time changes/zone's store and JSON work in process.")
    @Option(help: "A data directory the api scenario loaded (its --data).") var data: String?
    @Option(name: .customLong("database-url"),
            help: "Or the PostgreSQL database the api scenario loaded (--backend postgres).") var databaseURL: String?

    func validate() throws {
        guard (data == nil) != (databaseURL == nil) else { throw ValidationError("give one of --data and --database-url") }
    }

    func run() throws {
        let store: ServerStore
        if let databaseURL { store = try ServerStore(databaseURL: databaseURL) }
        else { store = try ServerStore(dataDirectory: URL(fileURLWithPath: data ?? ".").appendingPathComponent("stratus")) }
        let env = try store.environment(try ContainerID(APIScenario.container), .production)
        let db = DatabaseID.privateDatabase(of: APIScenario.user)
        // Twice each, alternating: the first pass also warms the page cache.
        for json in [false, true, false, true] {
            let (rate, n) = try EncodingProbe.changes(env, in: db, zone: ZoneID(zoneName: "Bench"), json: json)
            Figure(scenario: "changes", metric: json ? "json_rate" : "store_rate", value: rate,
                   unit: "records/s (\(n) records)").print()
        }
    }
}
