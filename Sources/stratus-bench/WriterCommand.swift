import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// Writes batches of 200 records forever, printing `ack N` after batch N is committed. The crash test
/// kills it with SIGKILL at an arbitrary moment and checks that every acknowledged batch survived.
struct WriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "writer", abstract: "Write acknowledged batches until killed (crash test helper).")
    @Option var data: String
    @Option var container: String

    func run() throws {
        let store = try ServerStore(dataDirectory: URL(fileURLWithPath: data))
        let env = try store.environment(try ContainerID(container), .development)
        var batch = 0
        while true {
            let ops = (0..<200).map { i in
                RecordOperation(.create, StoredRecord(recordName: "b\(batch)-\(i)", recordType: "Crash", fields: [
                    "batch": .int64(Int64(batch)), "text": .string(String(repeating: "x", count: 200)),
                    "tags": .list(.string, [.string("t\(i % 10)")]),
                ]))
            }
            let results = try env.records.modify(ops, in: .publicDatabase, zoneID: .defaultZone, atomic: false, actor: .system)
            guard results.allSatisfy({ $0.error == nil }) else { throw StratusError.badRequest("batch \(batch) failed") }
            emit("ack \(batch)")
            batch += 1
        }
    }
}
