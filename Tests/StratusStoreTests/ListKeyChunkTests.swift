import Foundation
import Testing
@testable import StratusStore

/// A list field's side table filled from existing rows in sorted chunks holds every (value, record) key once,
/// whatever the chunk boundaries, duplicates and order of arrival, on both backends.
@Suite struct ListKeyChunkTests {
    @Test(arguments: Backend.allCases) func sortedChunksStoreEveryKeyOnce(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f in
            // Keys in record order as a table scan reads them: each record's list, some items twice.
            var arrivals: [(SQLValue, Int64)] = []
            for id in Int64(1)...300 {
                for item in ["z\(id % 7)", "a\(id % 11)", "z\(id % 7)", "é\(id % 3)"] { arrivals.append((.text(item), id)) }
            }
            let expected = Set(arrivals.map { "\($0.0)|\($0.1)" })
            let stored: Set<String> = try f.dev.core.write { db, _ in
                try db.script(db.dialect.ddl("CREATE TABLE chunk_test(value TEXT, record_id BIGINT NOT NULL, PRIMARY KEY(value, record_id))"))
                // A capacity that puts boundaries inside records' lists and between a record's repeated items.
                var chunk = ListKeyChunk(table: "chunk_test", capacity: 97)
                for key in arrivals {
                    chunk.keys.append(key)
                    if chunk.isFull { try chunk.flush(db) }
                }
                try chunk.flush(db)
                #expect(chunk.keys.isEmpty)
                return Set(try db.all("SELECT value, record_id FROM chunk_test", []) { r in "\(SQLValue.text(r.string(0) ?? ""))|\(r.int64(1) ?? 0)" })
            }
            #expect(stored == expected)
        }
    }

    /// Flushed only at records' ends into an empty table (as a new list field's table is filled), PostgreSQL takes
    /// each chunk with one COPY: every key once still, a record's repeated items included.
    @Test(arguments: Backend.allCases) func chunksEndingAtRecordsStoreEveryKeyOnce(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f in
            var expected = Set<String>()
            let stored: Set<String> = try f.dev.core.write { db, _ in
                try db.script(db.dialect.ddl("CREATE TABLE chunk_copy(value TEXT, record_id BIGINT NOT NULL, PRIMARY KEY(value, record_id))"))
                var chunk = ListKeyChunk(table: "chunk_copy", capacity: 97, copies: true)
                for id in Int64(1)...300 {
                    for item in ["z\(id % 7)", "a\(id % 11)", "z\(id % 7)", "é\(id % 3)"] {
                        chunk.keys.append((.text(item), id))
                        expected.insert("\(SQLValue.text(item))|\(id)")
                    }
                    if chunk.isFull { try chunk.flush(db) }
                }
                try chunk.flush(db)
                return Set(try db.all("SELECT value, record_id FROM chunk_copy", []) { r in "\(SQLValue.text(r.string(0) ?? ""))|\(r.int64(1) ?? 0)" })
            }
            #expect(stored == expected)
        }
    }

    @Test func keysAreOrderedAsTheSideTableOrdersThem() {
        #expect(ListKeyChunk.precedes(.int64(-5), .int64(3)) && !ListKeyChunk.precedes(.int64(3), .int64(3)))
        #expect(ListKeyChunk.precedes(.double(0.5), .double(1.5)))
        #expect(ListKeyChunk.precedes(.text("B"), .text("a")), "by bytes: uppercase first")
        #expect(ListKeyChunk.precedes(.text("z"), .text("é")), "by bytes: UTF-8 after ASCII")
        #expect(ListKeyChunk.precedes(.blob(Data([1, 2])), .blob(Data([1, 3]))))
        // Shorter first on a common prefix; long (heap) strings as small ones; equal is not before.
        let long = String(repeating: "k", count: 40)
        for (a, b) in [("", "a"), ("ab", "abc"), (long, long + "a"), (long + "a", long + "b"), ("a" + long, "b")] {
            #expect(ListKeyChunk.precedes(.text(a), .text(b)) && !ListKeyChunk.precedes(.text(b), .text(a)), "\(a) < \(b)")
        }
        #expect(!ListKeyChunk.precedes(.text(long), .text(long)) && !ListKeyChunk.precedes(.text(""), .text("")))
    }
}
