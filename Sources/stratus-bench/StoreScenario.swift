import ArgumentParser
import Foundation
import GRDB
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
        let store = try RecordStore(dataDirectory: root.appendingPathComponent("stratus"))
        let container = try ContainerID("iCloud.com.example.Bench")
        if !reuse {
            try store.createContainer(container)
            try store.importSchema(try SchemaParser.parse(Self.schema), into: container)
            try store.deploy(container, by: "bench")
        }
        let env = try store.environment(container, .production)
        let baseline = try Baseline(path: root.appendingPathComponent("baseline.sqlite").path)
        let db = DatabaseID.publicDatabase

        if !reuse {
            // Insert: the store's modify path in batches of 200, then the baseline's plain INSERTs.
            stderr("inserting \(records) records…")
            var rng = SplitMix(state: 42)
            var storeMillis = 0.0
            var batch: [RecordOperation] = []
            batch.reserveCapacity(200)
            for i in 0..<records {
                batch.append(RecordOperation(.create, StoreScenario.record(BenchRow.make(i, &rng))))
                if batch.count == 200 || i == records - 1 {
                    let ops = batch
                    storeMillis += try millis {
                        let results = try env.modify(ops, in: db, zoneID: .defaultZone, atomic: false, actor: .system)
                        if let e = results.first(where: { $0.error != nil })?.error { throw e }
                    }
                    batch.removeAll(keepingCapacity: true)
                }
            }
            // The budget is shared: what the store's writer cached would leave the baseline's inserts none of it.
            env.releaseMemory()
            rng = SplitMix(state: 42)
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
        var q = SplitMix(state: 7)
        var storeTimes: [Double] = [], baseTimes: [Double] = []
        let titleCount = min(BenchRow.titles, records)
        for _ in 0..<repetitions {
            let title = "title-\(q.next() % UInt64(titleCount))"
            let query = Query(recordType: "Bench", filters: [QueryFilter(.field("title"), .equals, .string(title))])
            var n = 0
            storeTimes.append(try millis { n = try env.query(query, in: db).records.count })
            var m = 0
            baseTimes.append(try millis { m = try baseline.equals(title) })
            precondition(n == m, "store found \(n), baseline \(m)")
        }
        Figure(scenario: "store", metric: "equals_p50_ms", value: median(storeTimes), unit: "ms", baseline: median(baseTimes)).print()

        // Sorted range, five continuation pages of 200.
        var pageTimes: [Double] = []
        for _ in 0..<max(1, repetitions / 5) {
            let low = Int64(q.next() % 800_000)
            var query = Query(recordType: "Bench", filters: [QueryFilter(.field("count"), .greaterThanOrEquals, .int64(low)),
                                                               QueryFilter(.field("count"), .lessThan, .int64(low + 150_000))],
                              sorts: [QuerySort(.field("count"))])
            for _ in 0..<5 {
                var marker: String?
                pageTimes.append(try millis { marker = try env.query(query, in: db).continuationMarker })
                guard let marker else { break }
                query.continuationMarker = marker
            }
        }
        Figure(scenario: "store", metric: "range_page_p50_ms", value: median(pageTimes), unit: "ms").print()

        let tagCount = UInt64(BenchRow.tagVocabulary)
        Figure(scenario: "store", metric: "list_contains_p50_ms", value: try timeQueries(env, db, &q) {
            Query(recordType: "Bench", filters: [QueryFilter(.field("tags"), .listContains, .string("tag-\($0.next() % tagCount)"))])
        }, unit: "ms").print()
        Figure(scenario: "store", metric: "tokens_p50_ms", value: try timeQueries(env, db, &q) {
            let words = "\(BenchRow.word(Int($0.next() % UInt64(BenchRow.words)))) \(BenchRow.word(Int($0.next() % UInt64(BenchRow.words))))"
            return Query(recordType: "Bench", filters: [QueryFilter(.field("body"), .containsAllTokens, .string(words))])
        }, unit: "ms").print()
        Figure(scenario: "store", metric: "near_p50_ms", value: try timeQueries(env, db, &q) {
            let p = Location(latitude: 41 + Double($0.next() % 8000) / 1000, longitude: 1 + Double($0.next() % 8000) / 1000)
            return Query(recordType: "Bench", filters: [QueryFilter(.field("place"), .near, .location(p), distance: 10_000)],
                         sorts: [QuerySort(.field("place"), relativeLocation: p)])
        }, unit: "ms").print()

        // The whole zone's changes from the start, in pages of 200.
        var token: String? = nil
        var seen = 0
        let changeMillis = try millis {
            while true {
                let page = try env.zoneChanges(in: db, zoneID: .defaultZone, since: token, resultsLimit: 200)
                seen += page.changed.count
                token = page.syncToken
                if !page.moreComing { break }
            }
        }
        precondition(seen == records, "change feed returned \(seen) of \(records)")
        Figure(scenario: "store", metric: "zone_changes_rate", value: Double(seen) / changeMillis * 1000, unit: "records/s").print()
        Figure(scenario: "store", metric: "peak_rss_mb", value: peakRSSMegabytes(), unit: "MB").print()
    }

    private func timeQueries(_ env: EnvironmentStore, _ db: DatabaseID, _ rng: inout SplitMix, _ make: (inout SplitMix) -> Query) throws -> Double {
        var times: [Double] = []
        for _ in 0..<repetitions {
            let query = make(&rng)
            times.append(try millis { _ = try env.query(query, in: db) })
        }
        return median(times)
    }

    static func record(_ r: BenchRow) -> StoredRecord {
        StoredRecord(recordName: r.name, recordType: "Bench", fields: [
            "title": .string(r.title), "body": .string(r.body), "count": .int64(r.count), "score": .double(r.score),
            "at": .timestamp(r.at), "owner": .reference(Reference(recordName: r.owner)),
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

    init(path: String) throws {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -\(CacheBudget.megabytes * 1024); PRAGMA temp_store = MEMORY; PRAGMA wal_autocheckpoint = 10000")
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
                """)
        }
    }

    func insert(_ rows: [BenchRow]) throws {
        try queue.write { db in
            let st = try db.cachedStatement(sql: "INSERT INTO bench(record_name, title, body, count, score, at, owner, lat, lon, tags, nums, blob, category) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")
            let fts = try db.cachedStatement(sql: "INSERT INTO bench_fts(rowid, body) VALUES (?, ?)")
            for r in rows {
                let tags = "[" + r.tags.map { "\"\($0)\"" }.joined(separator: ",") + "]"
                let nums = "[" + r.nums.map(String.init).joined(separator: ",") + "]"
                try st.execute(arguments: [r.name, r.title, r.body, r.count, r.score, r.at, r.owner, r.lat, r.lon, tags, nums, r.blob, r.category])
                try fts.execute(arguments: [db.lastInsertedRowID, r.body])
            }
        }
    }

    /// Fetches the 200 matching rows and reads every column into Swift values.
    func equals(_ title: String) throws -> Int {
        try queue.read { db in
            var n = 0
            let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT * FROM bench WHERE title = ? ORDER BY record_name LIMIT 200"), arguments: [title])
            while let row = try rows.next() {
                let r = BenchRow(name: row[1], title: row[2], body: row[3], count: row[4], score: row[5], at: row[6], owner: row[7],
                                 lat: row[8], lon: row[9], tags: [row[10]], nums: [], blob: row[12])
                if !r.name.isEmpty { n += 1 }
            }
            return n
        }
    }
}
