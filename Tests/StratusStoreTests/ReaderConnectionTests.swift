import Foundation
import GRDB
import Testing
@testable import StratusStore

/// `GatedDatabase`'s read-only connections of its own: a read sees every write committed before it, reads past the
/// number of connections go to the pool's readers, a failed read leaves its connection usable, and after a close
/// a read fails instead of touching a closed handle.
@Suite struct ReaderConnectionTests {
    static func open(_ dir: URL, readers: Int) throws -> GatedDatabase<DatabasePool> {
        let path = dir.appendingPathComponent("db.sqlite").path
        var readOnly = Configuration()
        readOnly.readonly = true
        let gated = GatedDatabase(try DatabasePool(path: path), readers: readers, openReader: { [readOnly] in try DatabaseQueue(path: path, configuration: readOnly) })
        try gated.write { db in try db.execute(sql: "CREATE TABLE t (n INTEGER)") }
        return gated
    }

    @Test func readsSeeCommittedWritesFromManyThreadsAtOnce() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let gated = try Self.open(dir, readers: 2)
        for round in 1...20 {
            try gated.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [round]) }
            // Eight reads at once on two connections of our own: the rest go to the pool, all see the same rows.
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try gated.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") ?? -1 } } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts == Array(repeating: round, count: 8))
        }
        // A read that fails (a write on a read-only connection, a missing table) leaves its connection for the next.
        #expect(throws: (any Error).self) { try gated.read { db in try db.execute(sql: "INSERT INTO t VALUES (0)") } }
        #expect(throws: (any Error).self) { try gated.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM missing") } }
        #expect(try gated.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 20)
        gated.releaseMemory()
        try gated.close()
        #expect(throws: (any Error).self) { try gated.read { db in try Int.fetchOne(db, sql: "SELECT 1") } }
    }
}
