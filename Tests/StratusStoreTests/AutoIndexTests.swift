import Foundation
import StratusServer
import StratusTestSupport
import Testing
@testable import StratusModel
@testable import StratusStore

/// Automatic composite indexes: built for a frequent expensive shape, used by the compiler (EXPLAIN QUERY PLAN
/// says so), bounded, dropped with their fields, and never changing a result.
@Suite struct AutoIndexTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Item (
                "___recordID" REFERENCE QUERYABLE,
                category STRING QUERYABLE,
                count INT64 QUERYABLE SORTABLE,
                score DOUBLE QUERYABLE SORTABLE,
                note STRING
            );
        """

    static func fill(_ f: Fixture, _ n: Int, env: EnvironmentStore) throws {
        var rng = SystemRandomNumberGenerator()
        var records: [StoredRecord] = []
        for i in 0..<n {
            // Duplicated counts and scores, and missing values, so ties and NULLs are part of every order.
            var fields: RecordFields = ["category": .string("c\(i % 20)"), "count": .int64(Int64(rng.next(upperBound: 500) as UInt64))]
            if i % 7 != 0 { fields["score"] = .double(Double(rng.next(upperBound: 100) as UInt64) / 4) }
            records.append(StoredRecord(recordName: String(format: "r%06d", i), recordType: "Item", fields: fields))
        }
        try f.save(records, in: env)
    }

    static let listing = Query(recordType: "Item", filters: [QueryFilter(.field("category"), .equals, .string("c3"))],
                               sorts: [QuerySort(.field("count"), ascending: false)], resultsLimit: 200)

    @Test func aBuiltIndexServesItsShapeAndThePlanSaysSo() async throws {
        // Thousands of synchronous writes: off Swift's few cooperative threads, which other suites' servers need.
        try await offPool {
            let f = try Fixture(schema: Self.schema)
            try Self.fill(f, 4_000, env: f.dev)
            _ = try f.dev.records.query(Self.listing, in: f.pub)
            let before = try #require(try f.dev.queryShapes.all().first { $0.shape == "Item: category = · sort -count" })
            #expect(before.sorts || before.index != nil, "without a composite index SQLite sorts the matches or walks the whole count index: \(before.plan)")
            let ai = try f.dev.queryShapes.buildAutoIndex(for: QueryShape(Self.listing))
            #expect(ai.equalityFields == ["category"] && ai.orderField == "count")
            _ = try f.dev.records.query(Self.listing, in: f.pub)
            let after = try #require(try f.dev.queryShapes.all().first { $0.shape == before.shape })
            #expect(after.index == ai.name && !after.sorts, "\(after.plan)")
            // Asking again returns the same index; Production has none; a deploy does not copy it.
            #expect(try f.dev.queryShapes.buildAutoIndex(for: QueryShape(Self.listing)).name == ai.name)
            #expect(try f.prod.queryShapes.autoIndexes().isEmpty)
            try f.store.lifecycle.deploy(f.container, by: "test")
            #expect(try f.prod.queryShapes.autoIndexes().isEmpty && f.dev.queryShapes.autoIndexes().count == 1)
        }
    }

    @Test func aFrequentExpensiveShapeGetsItsIndexByItself() async throws {
        let f = try Fixture(schema: Self.schema)
        let env = try EnvironmentStore(container: f.container, environment: .development,
                                       file: f.directory.appendingPathComponent("auto.sqlite"), assetsDirectory: f.directory.appendingPathComponent("auto-assets"),
                                       durability: .relaxed, autoIndexPolicy: AutoIndexPolicy(minimumCalls: 5, minimumStepsPerRow: 1))
        _ = try env.schema.applySchema(try SchemaParser.parse(Self.schema), protecting: nil)
        try Self.fill(f, 2_000, env: env)
        for _ in 0..<5 { _ = try env.records.query(Self.listing, in: f.pub) }
        #expect(try env.queryShapes.all().count == 1)
        #expect(try env.queryShapes.autoIndexes().isEmpty, "a read never starts a build")
        QueryShapeKeeper.visit(env)   // the server's, once a minute: starts the build on a thread of its own
        var built: [AutoIndex] = []
        for _ in 0..<100 where built.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            built = try env.queryShapes.autoIndexes()
        }
        #expect(built.map(\.shape) == ["Item: category = · sort -count"] && built.first?.pinned == false)
    }

    @Test func capsRefusalsAndFieldDrops() async throws {
        // Thousands of synchronous writes: off Swift's few cooperative threads, which other suites' servers need.
        try await offPool {
            let f = try Fixture(schema: Self.schema)
            try Self.fill(f, 200, env: f.dev)
            // Shapes one index cannot serve are refused.
            for q in [Query(recordType: "Item", sorts: [QuerySort(.field("count"))]),
                      Query(recordType: "Item", filters: [QueryFilter(.field("category"), .equals, .string("x")), QueryFilter(.field("score"), .greaterThan, .double(1))],
                            sorts: [QuerySort(.field("count"))])] {
                #expect(throws: StratusError.self) { try f.dev.queryShapes.buildAutoIndex(for: QueryShape(q)) }
            }
            // A field that goes (in a Development never deployed) takes its automatic indexes with it.
            let dev = try EnvironmentStore(container: f.container, environment: .development, file: f.directory.appendingPathComponent("drop.sqlite"),
                                           assetsDirectory: f.directory.appendingPathComponent("drop-assets"), durability: .relaxed)
            _ = try dev.schema.applySchema(try SchemaParser.parse(Self.schema), protecting: nil)
            try Self.fill(f, 200, env: dev)
            _ = try dev.queryShapes.buildAutoIndex(for: QueryShape(Query(recordType: "Item", filters: [QueryFilter(.field("category"), .equals, .string("x"))],
                                                             sorts: [QuerySort(.field("score"))])))
            _ = try dev.queryShapes.buildAutoIndex(for: QueryShape(Self.listing))
            var schema = try dev.schema.current()
            schema.recordTypes[0].fields.removeAll { $0.name == "score" }
            _ = try dev.schema.applySchema(schema, protecting: Schema(roles: [], recordTypes: []))
            #expect(try dev.queryShapes.autoIndexes().map(\.orderField) == ["count"])
            #expect(try dev.records.query(Self.listing, in: f.pub).records.count == 10)
            _ = try f.dev.queryShapes.buildAutoIndex(for: QueryShape(Self.listing))
            // Pin, drop, and the per-type cap.
            let name = try #require(try f.dev.queryShapes.autoIndexes().first?.name)
            try f.dev.queryShapes.setAutoIndexPinned(name, true)
            #expect(try f.dev.queryShapes.autoIndexes().first?.pinned == true)
            try f.dev.queryShapes.dropAutoIndex(name)
            #expect(try f.dev.queryShapes.autoIndexes().isEmpty)
            #expect(throws: StratusError.self) { try f.dev.queryShapes.dropAutoIndex(name) }
            let capped = try EnvironmentStore(container: f.container, environment: .development, file: f.directory.appendingPathComponent("cap.sqlite"),
                                              assetsDirectory: f.directory.appendingPathComponent("cap-assets"), durability: .relaxed,
                                              autoIndexPolicy: AutoIndexPolicy(maximumPerType: 1))
            _ = try capped.schema.applySchema(try SchemaParser.parse(Self.schema), protecting: nil)
            _ = try capped.queryShapes.buildAutoIndex(for: QueryShape(Self.listing))
            #expect(throws: StratusError.self) {
                try capped.queryShapes.buildAutoIndex(for: QueryShape(Query(recordType: "Item", filters: [QueryFilter(.field("category"), .equals, .string("x"))], sorts: [QuerySort(.field("score"))])))
            }
        }
    }

    /// Random filters, sorts, limits and continuation pages over 50,000 records, with and without the automatic
    /// indexes: every page the same.
    @Test func indexesNeverChangeAResult() async throws {
        // Thousands of synchronous writes: off Swift's few cooperative threads, which other suites' servers need.
        try await offPool {
            let f = try Fixture(schema: Self.schema)
            try Self.fill(f, 50_000, env: f.dev)
            var rng = SystemRandomNumberGenerator()
            var queries: [Query] = []
            for _ in 0..<60 {
                var filters = [QueryFilter(.field("category"), .equals, .string("c\(rng.next(upperBound: 21) as UInt64)"))]
                if Bool.random(using: &rng) { filters.append(QueryFilter(.field("count"), .greaterThanOrEquals, .int64(Int64(rng.next(upperBound: 500) as UInt64)))) }
                let sortField = filters.count == 2 ? "count" : (Bool.random(using: &rng) ? "count" : "score")
                queries.append(Query(recordType: "Item", filters: filters, sorts: [QuerySort(.field(sortField), ascending: Bool.random(using: &rng))],
                                     resultsLimit: Int(rng.next(upperBound: 200) as UInt64) + 1))
            }
            func pages(_ q: Query) throws -> [[String]] {
                var q = q, out: [[String]] = []
                for _ in 0..<3 {
                    let page = try f.dev.records.query(q, in: f.pub)
                    out.append(page.records.map(\.recordName))
                    guard let m = page.continuationMarker else { break }
                    q.continuationMarker = m
                }
                return out
            }
            let plain = try queries.map(pages)
            for shape in Set(queries.map(QueryShape.init)) { _ = try f.dev.queryShapes.buildAutoIndex(for: shape) }
            // One index per (equality, order) pair serves both directions and the range on its order field.
            #expect(try Set(f.dev.queryShapes.autoIndexes().map { $0.orderField ?? "" }) == ["count", "score"])
            let indexed = try queries.map(pages)
            for (i, q) in queries.enumerated() { #expect(plain[i] == indexed[i], "\(QueryShape(q)) limit \(q.resultsLimit)") }
            // A marker taken before the index was built continues after it.
            for ai in try f.dev.queryShapes.autoIndexes() { try f.dev.queryShapes.dropAutoIndex(ai.name) }
            let first = try f.dev.records.query(Self.listing, in: f.pub)
            _ = try f.dev.queryShapes.buildAutoIndex(for: QueryShape(Self.listing))
            var next = Self.listing
            next.continuationMarker = first.continuationMarker
            let continued = try f.dev.records.query(next, in: f.pub).records.map(\.recordName)
            #expect(Set(continued).isDisjoint(with: first.records.map(\.recordName)) && !continued.isEmpty)
        }
    }

    /// The build runs in steps that writes interleave with: records created, moved in and out of the shape,
    /// re-sorted and deleted between steps (before and after the copy has passed them) are all where they belong
    /// once it is complete; and until then no query uses it.
    @Test func writesBetweenBuildStepsAreInTheIndex() async throws {
        try await offPool {
            let f = try Fixture(schema: Self.schema)
            try Self.fill(f, 3_000, env: f.dev)
            let ai = try f.dev.queryShapes.startAutoIndex(for: QueryShape(Self.listing), pinned: false)
            #expect(!ai.isReady)
            #expect(try f.dev.records.query(Self.listing, in: f.pub, explain: true).servedBy != ai.name)
            var step = 0, n = 0
            var rng = SystemRandomNumberGenerator()
            while true {
                let done = try f.dev.core.sqliteWrite { s, catalog in
                    let type = catalog.type(named: "Item")!
                    return try AutoIndexes.fill(ai, type, columns: AutoIndexes.columns(ai, type)!, limit: 250, s).done
                }
                if done { break }
                step += 1
                // Between steps: a new record in the shape, one moved into it and one out of it, one re-sorted, one deleted.
                n += 1
                try f.save([StoredRecord(recordName: "new\(n)", recordType: "Item", fields: ["category": .string("c3"), "count": .int64(Int64(n))])], in: f.dev)
                for (name, fields) in [(String(format: "r%06d", Int(rng.next(upperBound: 3000) as UInt64)), ["category": FieldValue.string("c3")]),
                                       (String(format: "r%06d", 3 + 20 * Int(rng.next(upperBound: 150) as UInt64)), ["category": .string("c4")]),
                                       (String(format: "r%06d", 3 + 20 * Int(rng.next(upperBound: 150) as UInt64)), ["count": .int64(Int64(rng.next(upperBound: 900) as UInt64))])] {
                    _ = try f.one(.forceUpdate, StoredRecord(recordName: name, recordType: "Item", fields: RecordFields(fields)), in: f.dev)
                }
                _ = try f.one(.forceDelete, StoredRecord(recordName: String(format: "r%06d", Int(rng.next(upperBound: 3000) as UInt64)), recordType: "Item"), in: f.dev)
            }
            #expect(step >= 10, "3,000 rows in steps of 250")
            let ready = try #require(try f.dev.queryShapes.autoIndexes().first)
            #expect(ready.isReady)
            func pages() throws -> [String] {
                var q = Self.listing, out: [String] = []
                q.resultsLimit = 97
                while true {
                    let page = try f.dev.records.query(q, in: f.pub)
                    out += page.records.map(\.recordName)
                    guard let m = page.continuationMarker else { return out }
                    q.continuationMarker = m
                }
            }
            #expect(try f.dev.records.query(Self.listing, in: f.pub, explain: true).servedBy == ready.name)
            let indexed = try pages()
            try f.dev.queryShapes.dropAutoIndex(ready.name)
            let plain = try pages()
            #expect(indexed == plain && indexed.count > 150)
        }
    }

    /// A build cut short (the process killed between steps) leaves an index no query uses; the next maintenance
    /// finishes it. A build that fails (the disk full) leaves no trace: no index table, no trigger, no row, every
    /// write working; it is tried again later.
    @Test func interruptedAndFailedBuilds() async throws {
        try await offPool {
            let f = try Fixture(schema: Self.schema)
            let file = f.directory.appendingPathComponent("cut.sqlite")
            func open(_ policy: AutoIndexPolicy = AutoIndexPolicy()) throws -> EnvironmentStore {
                try EnvironmentStore(container: f.container, environment: .development, file: file,
                                     assetsDirectory: f.directory.appendingPathComponent("cut-assets"), durability: .relaxed, autoIndexPolicy: policy)
            }
            do {
                let env = try open()
                _ = try env.schema.applySchema(try SchemaParser.parse(Self.schema), protecting: nil)
                try Self.fill(f, 2_000, env: env)
                let ai = try env.queryShapes.startAutoIndex(for: QueryShape(Self.listing), pinned: false)
                _ = try env.core.sqliteWrite { s, catalog in
                    let type = catalog.type(named: "Item")!
                    return try AutoIndexes.fill(ai, type, columns: AutoIndexes.columns(ai, type)!, limit: 300, s)
                }
            }
            let reopened = try open()
            let cut = try #require(try reopened.queryShapes.autoIndexes().first)
            #expect(!cut.isReady && (cut.builtThrough ?? 0) > 0)
            let served = try reopened.records.query(Self.listing, in: f.pub, explain: true)
            #expect(served.servedBy != cut.name && served.records.count == 100)
            QueryShapeKeeper.visit(reopened)
            var finished = false
            for _ in 0..<200 where !finished {
                usleep(25_000)
                finished = try reopened.queryShapes.autoIndexes().first?.isReady == true
            }
            #expect(finished)
            #expect(try reopened.records.query(Self.listing, in: f.pub, explain: true).servedBy == cut.name)
            try reopened.queryShapes.dropAutoIndex(cut.name)

            // Disk full: SQLite may grow the file by only a few pages.
            let full = try open(AutoIndexPolicy(retryFailedAfter: 0))
            try full.core.sqlite!.gated.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }  // no free pages left from the index dropped above
            let pages = try full.core.sqlite!.gated.write { db in try Int.fetchOne(db, sql: "PRAGMA page_count")! }
            try full.core.sqlite!.gated.write { db in try db.execute(sql: "PRAGMA max_page_count = \(pages + 12)") }
            #expect(throws: StratusError.self) { try full.queryShapes.buildAutoIndex(for: QueryShape(Self.listing)) }
            #expect(try full.queryShapes.autoIndexes().isEmpty)
            let leftovers = try full.core.sqlite!.gated.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 't%\\_auto\\_%' ESCAPE '\\'") }
            #expect(leftovers.isEmpty, "\(leftovers)")
            #expect(full.queryShapes.upkeep.failures.withLock { $0.keys.contains(QueryShape(Self.listing).description) })
            try full.core.sqlite!.gated.write { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
            _ = try f.one(.forceUpdate, StoredRecord(recordName: "r000003", recordType: "Item", fields: ["count": .int64(1)]), in: full)
            #expect(try full.queryShapes.buildAutoIndex(for: QueryShape(Self.listing)).isReady)
            #expect(try full.integrityCheck() == "ok")
        }
    }

    /// The automatic indexes of an environment together stay within their size budget.
    @Test func theSizeBudgetRefusesAnIndexThatWouldExceedIt() async throws {
        try await offPool {
            let f = try Fixture(schema: Self.schema)
            let env = try EnvironmentStore(container: f.container, environment: .development, file: f.directory.appendingPathComponent("budget.sqlite"),
                                           assetsDirectory: f.directory.appendingPathComponent("budget-assets"), durability: .relaxed,
                                           autoIndexPolicy: AutoIndexPolicy(maximumTotalBytes: 150_000))
            _ = try env.schema.applySchema(try SchemaParser.parse(Self.schema), protecting: nil)
            try Self.fill(f, 2_000, env: env)
            let first = try env.queryShapes.buildAutoIndex(for: QueryShape(Self.listing))
            #expect(first.estimatedBytes > 50_000 && first.estimatedBytes < 150_000)
            let error = expectError(.badRequest) {
                try env.queryShapes.buildAutoIndex(for: QueryShape(Query(recordType: "Item", filters: [QueryFilter(.field("category"), .equals, .string("x"))], sorts: [QuerySort(.field("score"))])))
            }
            #expect(error?.reason.contains("150") == false || error?.reason.contains("MB") == true)
            #expect(try env.queryShapes.autoIndexes().count == 1)
        }
    }
}
