import ArgumentParser
import Foundation
import GRDB
import Synchronization
import StratusModel
import StratusStore

/// `stratus-bench store --records N`: the store's modify, query and change paths on one record type of ten
/// fields, beside the same work done with plain SQL through GRDB on an equivalent hand-made table.
struct StoreScenario: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "store", abstract: "Store insert, query and change-feed figures.")
    @Option(help: "How many records to insert.") var records: Int = 1_000_000
    @Option(help: "Where to build the stores (a fresh temporary directory by default; removed afterwards).") var data: String?
    @Option(help: "Timed repetitions per query figure.") var repetitions: Int = 200
    @Option(help: "SQLite's cache budget in MB, for the store and the baseline alike (default: the server's default).") var cacheMb: Int?

    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Bench (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE SORTABLE,
                body STRING SEARCHABLE,
                count INT64 QUERYABLE SORTABLE,
                score DOUBLE QUERYABLE SORTABLE,
                at TIMESTAMP QUERYABLE SORTABLE,
                owner REFERENCE QUERYABLE,
                place LOCATION QUERYABLE SORTABLE,
                tags LIST<STRING> QUERYABLE,
                nums LIST<INT64> QUERYABLE,
                blob BYTES,
                category STRING QUERYABLE
            );
        """

    func run() throws {
        let root = data.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory.appendingPathComponent("stratus-bench-\(UUID().uuidString)")
        // A kept `--data` directory that holds a complete load of the same size is reused: the query figures alone.
        let loaded = root.appendingPathComponent("loaded-\(records)")
        let reuse = data != nil && FileManager.default.fileExists(atPath: loaded.path)
        if !reuse {
            try? FileManager.default.removeItem(at: root)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }
        defer { if data == nil { try? FileManager.default.removeItem(at: root) } }

        // One budget for both sides: the soft heap limit is the process's, and each side's connections may grow to it.
        CacheBudget.apply(megabytes: cacheMb ?? CacheBudget.defaultMegabytes)
        Figure(scenario: "store", metric: "cache_mb", value: Double(CacheBudget.megabytes), unit: "MB").print()
        let store = try ServerStore(dataDirectory: root.appendingPathComponent("stratus"))
        let container = try ContainerID("iCloud.com.example.Bench")
        if !reuse {
            try store.createContainer(container)
            try store.lifecycle.importSchema(try SchemaParser.parse(Self.schema), into: container)
            try store.lifecycle.deploy(container, by: "bench")
        }
        let env = try store.environment(container, .production)
        let baseline = try Baseline(path: root.appendingPathComponent("baseline.sqlite").path)
        let db = DatabaseID.publicDatabase

        if !reuse {
            // Insert: the store's modify path in batches of 200, then the baseline's plain INSERTs.
            stderr("inserting \(records) records…")
            var rng = SplitMix(seed: 42)
            var storeMillis = 0.0
            var batch: [RecordOperation] = []
            batch.reserveCapacity(200)
            for i in 0..<records {
                batch.append(RecordOperation(.create, StoreScenario.record(BenchRow.make(i, &rng))))
                if batch.count == 200 || i == records - 1 {
                    let ops = batch
                    storeMillis += try millis {
                        let results = try env.records.modify(ops, in: db, zoneID: .defaultZone, atomic: false, actor: .system)
                        if let e = results.first(where: { $0.error != nil })?.error { throw e }
                    }
                    batch.removeAll(keepingCapacity: true)
                }
            }
            // The budget is shared: what the store's writer cached would leave the baseline's inserts none of it.
            env.releaseMemory()
            rng = SplitMix(seed: 42)
            var baselineMillis = 0.0
            var rows: [BenchRow] = []
            for i in 0..<records {
                rows.append(BenchRow.make(i, &rng))
                if rows.count == 200 || i == records - 1 {
                    let chunk = rows
                    baselineMillis += try millis { try baseline.insert(chunk) }
                    rows.removeAll(keepingCapacity: true)
                }
            }
            let storeRate = Double(records) / storeMillis * 1000, baseRate = Double(records) / baselineMillis * 1000
            Figure(scenario: "store", metric: "insert_rate", value: storeRate, unit: "records/s", baseline: baseRate).print()
            _ = FileManager.default.createFile(atPath: loaded.path, contents: nil)
        }

        // Indexed EQUALS, 200 results. Both sides start cold, from empty caches and with their files out of the
        // operating system's cache (the side written last would otherwise read from memory what the other reads from
        // disk), and grow in turn within the one budget.
        baseline.queue.releaseMemory()
        env.releaseMemory()
        let evicted = OSCache.evict(under: root)
        Figure(scenario: "store", metric: "evicted_mb", value: Double(evicted) / 1_048_576, unit: "MB").print()
        var q = SplitMix(seed: 7)
        let titleCount = min(BenchRow.titles, records)
        // A working set of 40 titles: each one's first query reads from disk (the cold figure), the repetitions after
        // it are a server in service whose working set fits the budget (the figure docs/benchmarks.md gives).
        let titles = (0..<40).map { _ in "title-\(q.next() % UInt64(titleCount))" }
        let (cold, warm) = try Self.interleaved(titles, repetitions: repetitions, store: { title in
            try env.records.query(Query(recordType: "Bench", filters: [QueryFilter(.field("title"), .equals, .string(title))]), in: db).records.count
        }, baseline: { title in try baseline.equals(title) })
        Figure(scenario: "store", metric: "equals_cold_p50_ms", value: cold.store, unit: "ms", baseline: cold.baseline).print()
        Figure(scenario: "store", metric: "equals_p50_ms", value: warm.store, unit: "ms", baseline: warm.baseline).print()
        // The same page as records/query reads it: rows streamed to a sink that takes every value, no record built.
        let (_, streamed) = try Self.interleaved(titles, repetitions: repetitions, store: { title in
            var sink = ReadingSink()
            _ = try env.records.query(Query(recordType: "Bench", filters: [QueryFilter(.field("title"), .equals, .string(title))]), in: db, into: &sink)
            return sink.records
        }, baseline: { title in try baseline.equals(title) })
        Figure(scenario: "store", metric: "equals_streamed_p50_ms", value: streamed.store, unit: "ms", baseline: streamed.baseline).print()

        // Sorted range, five continuation pages of 200, over a working set of 10 ranges: a first pass over them reads
        // from disk (the cold figure), the passes after it are a server in service.
        let lows = (0..<10).map { _ in Int64(q.next() % 800_000) }
        var coldPages: [Double] = [], pageTimes: [Double] = []
        for r in 0..<(lows.count + max(1, repetitions / 5)) {
            var query = Query(recordType: "Bench", filters: [QueryFilter(.field("count"), .greaterThanOrEquals, .int64(lows[r % lows.count])),
                                                               QueryFilter(.field("count"), .lessThan, .int64(lows[r % lows.count] + 150_000))],
                              sorts: [QuerySort(.field("count"))])
            for _ in 0..<5 {
                var marker: String?
                let ms = try millis { marker = try env.records.query(query, in: db).continuationMarker }
                if r < lows.count { coldPages.append(ms) } else { pageTimes.append(ms) }
                guard let marker else { break }
                query.continuationMarker = marker
            }
        }
        Figure(scenario: "store", metric: "range_page_cold_p50_ms", value: median(coldPages), unit: "ms").print()
        Figure(scenario: "store", metric: "range_page_p50_ms", value: median(pageTimes), unit: "ms").print()

        try shapeFigures(env, db, baseline, &q)

        // List, full-text and location filters over working sets of 40 random keys, as for equality: each key's
        // first query reads from disk (the cold figure), the repetitions are a server in service.
        let tagCount = UInt64(BenchRow.tagVocabulary)
        try timeQueries("list_contains", env, db, &q) {
            Query(recordType: "Bench", filters: [QueryFilter(.field("tags"), .listContains, .string("tag-\($0.next() % tagCount)"))])
        }
        try timeQueries("tokens", env, db, &q) {
            let words = "\(BenchRow.word(Int($0.next() % UInt64(BenchRow.words)))) \(BenchRow.word(Int($0.next() % UInt64(BenchRow.words))))"
            return Query(recordType: "Bench", filters: [QueryFilter(.field("body"), .containsAllTokens, .string(words))])
        }
        try timeQueries("near", env, db, &q) {
            let p = Location(latitude: 41 + Double($0.next() % 8000) / 1000, longitude: 1 + Double($0.next() % 8000) / 1000)
            return Query(recordType: "Bench", filters: [QueryFilter(.field("place"), .near, .location(p), distance: 10_000)],
                         sorts: [QuerySort(.field("place"), relativeLocation: p)])
        }

        // The whole zone's changes from the start, in pages of 200.
        var token: String? = nil
        var seen = 0
        let changeMillis = try millis {
            while true {
                let page = try env.zones.zoneChanges(in: db, zoneID: .defaultZone, since: token, resultsLimit: 200)
                seen += page.changed.count
                token = page.syncToken
                if !page.moreComing { break }
            }
        }
        precondition(seen >= records, "change feed returned \(seen) of \(records)")
        Figure(scenario: "store", metric: "zone_changes_rate", value: Double(seen) / changeMillis * 1000, unit: "records/s").print()
        Figure(scenario: "store", metric: "peak_rss_mb", value: peakRSSMegabytes(), unit: "MB").print()
    }

    /// Each key's first query on both sides (cold), then `repetitions` queries over the keys in turn (warm); the
    /// two sides alternate so that neither has the machine to itself. Returns the p50s, store and baseline.
    static func interleaved(_ keys: [String], repetitions: Int, store: (String) throws -> Int, baseline: (String) throws -> Int) throws
        -> (cold: (store: Double, baseline: Double), warm: (store: Double, baseline: Double)) {
        var coldStore: [Double] = [], coldBase: [Double] = [], warmStore: [Double] = [], warmBase: [Double] = []
        for r in 0..<(keys.count + repetitions) {
            let key = keys[r % keys.count]
            var n = 0, m = 0
            let s = try millis { n = try store(key) }
            let b = try millis { m = try baseline(key) }
            precondition(n == m, "store found \(n), baseline \(m) for \(key)")
            if r < keys.count { coldStore.append(s); coldBase.append(b) } else { warmStore.append(s); warmBase.append(b) }
        }
        return ((median(coldStore), median(coldBase)), (median(warmStore), median(warmBase)))
    }

    /// The everyday list query (`category = x`, 5% of the records, newest count first, 200): its automatic index
    /// built while a writer keeps writing (how long writes waited, beside how long the baseline's CREATE INDEX held
    /// its writer), then its page beside the same page from a hand-made composite index in plain SQL.
    private func shapeFigures(_ env: EnvironmentStore, _ db: DatabaseID, _ baseline: Baseline, _ q: inout SplitMix) throws {
        let shapeQuery = { (category: String) in
            Query(recordType: "Bench", filters: [QueryFilter(.field("category"), .equals, .string(category))],
                  sorts: [QuerySort(.field("count"), ascending: false)], resultsLimit: 200)
        }
        for ai in try env.queryShapes.autoIndexes() { try env.queryShapes.dropAutoIndex(ai.name) }
        try baseline.queue.write { db in try db.execute(sql: "DROP INDEX IF EXISTS bench_category_count") }
        let done = Mutex(false)
        let waits = Mutex<[Double]>([])
        let writer = Thread {
            var i = 0
            while !done.withLock({ $0 }) {
                i += 1
                var r = SplitMix(seed: UInt64(i))
                var row = BenchRow.make(i, &r)
                row.name = "during-build-\(i)"
                let ms = (try? millis { _ = try env.records.modify([RecordOperation(.create, StoreScenario.record(row))], in: db, zoneID: .defaultZone, actor: .system) }) ?? 0
                waits.withLock { $0.append(ms) }
            }
            // The records it wrote go again, so that a kept data directory still matches the baseline.
            for chunk in stride(from: 1, through: i, by: 200) {
                let ops = (chunk..<min(chunk + 200, i + 1)).map { RecordOperation(.forceDelete, StoredRecord(recordName: "during-build-\($0)", recordType: "Bench")) }
                _ = try? env.records.modify(ops, in: db, zoneID: .defaultZone, atomic: false, actor: .system)
            }
        }
        writer.start()
        usleep(200_000)
        let built = try env.queryShapes.buildAutoIndex(for: QueryShape(shapeQuery("cat-0")))
        done.withLock { $0 = true }
        while !writer.isFinished { usleep(1_000) }
        let createIndexMillis = try millis { try baseline.queue.write { db in try db.execute(sql: "CREATE INDEX bench_category_count ON bench(category, count)") } }
        let during = waits.withLock { $0 }
        Figure(scenario: "store", metric: "auto_index_build_ms", value: built.buildMilliseconds, unit: "ms", baseline: createIndexMillis).print()
        Figure(scenario: "store", metric: "auto_index_longest_step_ms", value: built.longestStepMilliseconds, unit: "ms", baseline: createIndexMillis).print()
        Figure(scenario: "store", metric: "write_max_ms_during_build", value: during.max() ?? 0, unit: "ms", baseline: createIndexMillis).print()
        Figure(scenario: "store", metric: "write_p50_ms_during_build", value: median(during), unit: "ms").print()

        baseline.queue.releaseMemory()
        env.releaseMemory()
        _ = OSCache.evict(under: URL(fileURLWithPath: baseline.queue.path).deletingLastPathComponent())
        let categories = (0..<BenchRow.categories).map { "cat-\($0)" }
        // The page as `records/query` reads it (rows streamed to a sink that takes every value, no record built)…
        let (cold, warm) = try Self.interleaved(categories, repetitions: repetitions, store: { c in
            var sink = ReadingSink()
            _ = try env.records.query(shapeQuery(c), in: db, into: &sink)
            return sink.records
        }, baseline: { c in try baseline.shapePage(c) })
        Figure(scenario: "store", metric: "shape_page_cold_p50_ms", value: cold.store, unit: "ms", baseline: cold.baseline).print()
        Figure(scenario: "store", metric: "shape_page_p50_ms", value: warm.store, unit: "ms", baseline: warm.baseline).print()
        // … and as the console reads it (200 StoredRecords built).
        let (_, asRecords) = try Self.interleaved(categories, repetitions: repetitions, store: { c in
            try env.records.query(shapeQuery(c), in: db).records.count
        }, baseline: { c in try baseline.shapePage(c) })
        Figure(scenario: "store", metric: "shape_page_records_p50_ms", value: asRecords.store, unit: "ms", baseline: asRecords.baseline).print()
    }

    /// `{name}_cold_p50_ms` over each of 40 queries' first run, then `{name}_p50_ms` over `repetitions` runs of them in turn.
    private func timeQueries(_ name: String, _ env: EnvironmentStore, _ db: DatabaseID, _ rng: inout SplitMix, _ make: (inout SplitMix) -> Query) throws {
        let queries = (0..<40).map { _ in make(&rng) }
        var cold: [Double] = [], warm: [Double] = []
        for r in 0..<(queries.count + repetitions) {
            let ms = try millis { _ = try env.records.query(queries[r % queries.count], in: db) }
            if r < queries.count { cold.append(ms) } else { warm.append(ms) }
        }
        Figure(scenario: "store", metric: "\(name)_cold_p50_ms", value: median(cold), unit: "ms").print()
        Figure(scenario: "store", metric: "\(name)_p50_ms", value: median(warm), unit: "ms").print()
    }

    static func record(_ r: BenchRow) -> StoredRecord {
        StoredRecord(recordName: r.name, recordType: "Bench", fields: [
            "title": .string(r.title), "body": .string(r.body), "count": .int64(r.count), "score": .double(r.score),
            "at": .timestamp(Timestamp(millisSince1970: r.at)), "owner": .reference(Reference(recordName: r.owner)),
            "place": .location(Location(latitude: r.lat, longitude: r.lon)),
            "tags": .list(.string, r.tags.map { .string($0) }), "nums": .list(.int64, r.nums.map { .int64($0) }), "blob": .bytes(r.blob),
            "category": .string(r.category),
        ])
    }
}

/// The same records in one hand-made table with the same B-tree indexes and a full-text table, written and read
/// with plain SQL through GRDB: what the store's work is measured against.
struct Baseline {
    let queue: DatabaseQueue

    /// `synchronous`: NORMAL for the store scenario's figures (as they always were); FULL where the other side
    /// syncs every commit (the API's default durability).
    init(path: String, synchronous: String = "NORMAL") throws {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous); PRAGMA cache_size = -\(CacheBudget.megabytes * 1024); PRAGMA temp_store = MEMORY; PRAGMA wal_autocheckpoint = 10000")
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        // WAL like the store (a journal mode cannot change inside a transaction: this one ran in rollback mode before).
        try queue.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS bench(id INTEGER PRIMARY KEY, record_name TEXT NOT NULL UNIQUE, title TEXT, body TEXT, count INTEGER,
                    score REAL, at INTEGER, owner TEXT, lat REAL, lon REAL, tags TEXT, nums TEXT, blob BLOB, category TEXT);
                CREATE INDEX IF NOT EXISTS bench_title ON bench(title);
                CREATE INDEX IF NOT EXISTS bench_count ON bench(count);
                CREATE INDEX IF NOT EXISTS bench_score ON bench(score);
                CREATE INDEX IF NOT EXISTS bench_at ON bench(at);
                CREATE INDEX IF NOT EXISTS bench_owner ON bench(owner);
                CREATE INDEX IF NOT EXISTS bench_lat ON bench(lat);
                CREATE INDEX IF NOT EXISTS bench_category ON bench(category);
                CREATE VIRTUAL TABLE IF NOT EXISTS bench_fts USING fts5(body);
                \(Self.listTables)
                """)
        }
    }

    /// The index a hand-made schema needs for `tags CONTAINS x` and `nums CONTAINS n` (the schema declares both lists
    /// QUERYABLE): one row per element, keyed by the element, as a junction table is. Without them the baseline left
    /// out six of a record's index entries that the store writes (two lists of three), and a ratio of its rate was
    /// of different work.
    static let listTables = """
        CREATE TABLE IF NOT EXISTS bench_tags(value TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY(value, id)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS bench_nums(value INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY(value, id)) WITHOUT ROWID;
        """

    func insert(_ rows: [BenchRow]) throws {
        try queue.write { db in
            let st = try db.cachedStatement(sql: "INSERT INTO bench(record_name, title, body, count, score, at, owner, lat, lon, tags, nums, blob, category) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")
            let fts = try db.cachedStatement(sql: "INSERT INTO bench_fts(rowid, body) VALUES (?, ?)")
            let tag = try db.cachedStatement(sql: "INSERT OR IGNORE INTO bench_tags(value, id) VALUES (?, ?)")
            let num = try db.cachedStatement(sql: "INSERT OR IGNORE INTO bench_nums(value, id) VALUES (?, ?)")
            for r in rows {
                let tags = "[" + r.tags.map { "\"\($0)\"" }.joined(separator: ",") + "]"
                let nums = "[" + r.nums.map(String.init).joined(separator: ",") + "]"
                try st.execute(arguments: [r.name, r.title, r.body, r.count, r.score, r.at, r.owner, r.lat, r.lon, tags, nums, r.blob, r.category])
                let id = db.lastInsertedRowID
                try fts.execute(arguments: [id, r.body])
                for t in r.tags { try tag.execute(arguments: [t, id]) }
                for n in r.nums { try num.execute(arguments: [n, id]) }
            }
        }
    }

    /// The list page from the hand-made composite index (category, count): 200 rows, every column read.
    func shapePage(_ category: String) throws -> Int {
        try queue.read { db in
            try Self.readAll(Row.fetchCursor(db.cachedStatement(sql: "SELECT * FROM bench INDEXED BY bench_category_count WHERE category = ? ORDER BY count DESC, id DESC LIMIT 200"),
                                             arguments: [category]))
        }
    }

    /// Fetches the 200 matching rows and reads every column into Swift values.
    func equals(_ title: String) throws -> Int {
        try queue.read { db in
            try Self.readAll(Row.fetchCursor(db.cachedStatement(sql: "SELECT * FROM bench WHERE title = ? ORDER BY record_name LIMIT 200"), arguments: [title]))
        }
    }

    /// Reads every column of every row into Swift values, as the store's answers are read; the rows read.
    static func readAll(_ rows: RowCursor) throws -> Int {
        var n = 0
        while let row = try rows.next() {
            let r = BenchRow(name: row[1], title: row[2], body: row[3], count: row[4], score: row[5], at: row[6], owner: row[7],
                             lat: row[8], lon: row[9], tags: [row[10]], nums: [], blob: row[12])
            if !r.name.isEmpty { n += 1 }
        }
        return n
    }
}
