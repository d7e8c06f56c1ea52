import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// Writes batches of 200 records forever, printing `ack N` after batch N is committed. The crash test
/// kills it with SIGKILL at an arbitrary moment and checks that every acknowledged batch survived.
struct WriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "writer",
                                                    abstract: "Write acknowledged batches until killed (crash test helper).")
    @Option var data: String?
    @Option(help: "A PostgreSQL store instead of --data: the writer is a second node.") var databaseURL: String?
    @Option var container: String
    @Option(help: "Write into this user's private zone (named by --zone) instead of the public default zone.") var user: String?
    @Option var zone: String = ZoneID.defaultZoneName
    @Option(help: "Records per batch.") var batchSize: Int = 200

    func run() throws {
        let store = try databaseURL.map { try ServerStore(databaseURL: $0,
                                                          poolSize: 2) } ?? ServerStore(dataDirectory: URL(fileURLWithPath: data ?? "./data"))
        let env = try store.environment(try ContainerID(container), .development)
        let database = user.map { DatabaseID.privateDatabase(of: $0) } ?? .publicDatabase
        let actor = user.map { RequestActor(userRecordName: $0) } ?? .system
        var batch = 0
        while true {
            let ops = (0..<batchSize).map { i in
                RecordOperation(.create, StoredRecord(recordName: "b\(batch)-\(i)", recordType: "Crash", fields: [
                    "batch": .int64(Int64(batch)), "text": .string(String(repeating: "x", count: 200)),
                    "tags": .list(.string, [.string("t\(i % 10)")]),
                ]))
            }
            let results = try env.records.modify(ops, in: database, zoneID: ZoneID(zoneName: zone), atomic: false,
                                                 actor: actor)
            guard results.allSatisfy({ $0.error == nil }) else { throw StratusError.badRequest("batch \(batch) failed") }
            emit("ack \(batch)")
            batch += 1
        }
    }
}
