import Foundation
import GRDB
import Testing
@testable import StratusModel
@testable import StratusStore

/// An acknowledgement means "on disk" unless the operator chose otherwise.
@Suite struct DurabilityTests {
    static func synchronous(_ store: ServerStore, _ container: ContainerID) throws -> (writer: Int, reader: Int, control: Int) {
        let env = try store.environment(container, .development)
        let writer = try env.core.sqlite!.gated.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
        let reader = Int(try env.core.read { s, _ in try s.int64("PRAGMA synchronous") } ?? -1)
        let control = Int(try store.control.read { s in try s.int64("PRAGMA synchronous") } ?? -1)
        return (writer, reader, control)
    }

    @Test func everyDatabaseFileSyncsEachCommitByDefault() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-durability-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try ContainerID("iCloud.com.example.Durable")
        let store = try ServerStore(dataDirectory: dir)
        try store.createContainer(container)
        let s = try Self.synchronous(store, container)
        #expect(s.writer == 2 && s.reader == 2 && s.control == 2, "synchronous = FULL (2) everywhere: \(s)")
        let wal = try store.environment(container, .development).core.sqlite!.gated.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(wal == "wal")

        let relaxedDir = dir.appendingPathComponent("relaxed")
        let relaxed = try ServerStore(dataDirectory: relaxedDir, durability: .relaxed)
        try relaxed.createContainer(container)
        let r = try Self.synchronous(relaxed, container)
        #expect(r.writer == 1 && r.control == 1, "relaxed is synchronous = NORMAL (1): \(r)")
    }
}
