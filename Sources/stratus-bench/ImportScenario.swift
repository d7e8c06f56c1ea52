import ArgumentParser
import Foundation
import GRDB
import StratusAPI
import StratusModel
import StratusStore

/// `stratus-bench import --records N`: `stratus records import` and `export`'s work on N records of the store
/// scenario's type, into an empty type, beside plain SQL doing the same load (insert the rows, then create the
/// same indexes) in the same run. Peak RSS is reset between phases (`/proc/self/clear_refs`).
struct ImportScenario: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Bulk import and export figures.")
    @Option(help: "How many records.") var records: Int = 1_000_000
    @Option(help: "full (the server's default) or relaxed.") var durability: String = "full"

    func run() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-import-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        CacheBudget.apply(megabytes: CacheBudget.defaultMegabytes)

        // The file: the store scenario's records as export writes them.
        let file = root.appendingPathComponent("records.ndjson")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let out = try FileHandle(forWritingTo: file)
        var rng = SplitMix(seed: 42)
        var chunk = Data()
        for i in 0..<records {
            chunk.append(contentsOf: RecordLines.encode(StoreScenario.record(BenchRow.make(i, &rng))))
            chunk.append(0x0A)
            if chunk.count > 1 << 20 { try out.write(contentsOf: chunk); chunk.removeAll(keepingCapacity: true) }
        }
        try out.write(contentsOf: chunk)
        try out.close()
        let bytes = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
        Figure(scenario: "import", metric: "file_mb", value: Double(bytes) / 1_048_576, unit: "MB").print()

        // Stratus: an empty type in Production (deployed schema), through the importer `stratus records import` runs.
        let store = try ServerStore(dataDirectory: root.appendingPathComponent("stratus"),
                                    durability: Durability(rawValue: durability) ?? .full)
        let container = try ContainerID("iCloud.com.example.Import")
        try store.createContainer(container)
        try store.lifecycle.importSchema(try SchemaParser.parse(StoreScenario.schema), into: container)
        try store.lifecycle.deploy(container, by: "bench")
        let env = try store.environment(container, .production)
        Self.resetPeakRSS()
        var imported = 0
        let importCPU = processCPUSeconds()
        let importMillis = try millis { imported = try RecordImporter(env: env, database: .publicDatabase).run(file) }
        let importCPUSeconds = processCPUSeconds() - importCPU
        precondition(imported == records, "imported \(imported) of \(records)")
        let importRSS = peakRSSMegabytes()

        // Baseline: the same rows inserted with plain SQL into a table with no index, then the same indexes created.
        env.releaseMemory()
        let baseline = try DatabaseQueue(path: root.appendingPathComponent("baseline.sqlite").path, configuration: {
            var c = Configuration()
            c.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = \(durability == "relaxed" ? "NORMAL" : "FULL"); PRAGMA cache_size = -\(CacheBudget.megabytes * 1024)") }
            return c
        }())
        try baseline.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
        rng = SplitMix(seed: 42)
        let baseCPU = processCPUSeconds()
        let baseMillis = try millis {
            try baseline.write { db in
                try db.execute(sql: """
                    CREATE TABLE bench(id INTEGER PRIMARY KEY, record_name TEXT NOT NULL, title TEXT, body TEXT, count INTEGER, score REAL, at INTEGER,
                        owner TEXT, lat REAL, lon REAL, tags TEXT, nums TEXT, blob BLOB, category TEXT)
                    """)
            }
            var rows: [BenchRow] = []
            for i in 0..<records {
                rows.append(BenchRow.make(i, &rng))
                if rows.count == 200 || i == records - 1 {
                    try baseline.write { db in
                        let st = try db.cachedStatement(sql: "INSERT INTO bench(record_name, title, body, count, score, at, owner, lat, lon, tags, nums, blob, category) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")
                        for r in rows {
                            try st.execute(arguments: [r.name, r.title, r.body, r.count, r.score, r.at, r.owner, r.lat,
                                                       r.lon,
                                                       "[" + r.tags.map { "\"\($0)\"" }.joined(separator: ",") + "]", "[" + r.nums.map(String.init).joined(separator: ",") + "]", r.blob, r.category])
                        }
                    }
                    rows.removeAll(keepingCapacity: true)
                }
            }
            try baseline.write { db in
                for c in ["record_name", "title", "count", "score", "at", "owner", "lat",
                          "category"] { try db.execute(sql: "CREATE INDEX bench_\(c) ON bench(\(c))") }
                try db.execute(sql: "CREATE VIRTUAL TABLE bench_fts USING fts5(body); INSERT INTO bench_fts(rowid, body) SELECT id, body FROM bench")
                // The lists' element indexes (see Baseline.listTables), built from the rows in key order as an index
                // is.
                try db.execute(sql: Baseline.listTables + """
                    INSERT OR IGNORE INTO bench_tags(value, id) SELECT j.value, bench.id FROM bench, json_each(bench.tags) j ORDER BY 1, 2;
                    INSERT OR IGNORE INTO bench_nums(value, id) SELECT j.value, bench.id FROM bench, json_each(bench.nums) j ORDER BY 1, 2;
                    """)
            }
        }
        Figure(scenario: "import", metric: "import_rate", value: Double(records) / importMillis * 1000,
               unit: "records/s",
               baseline: Double(records) / baseMillis * 1000).print()
        // Processor time per record, both threads of the import against the baseline's (which makes its rows in
        // memory instead of reading a file): steadier than the rate on a shared machine.
        Figure(scenario: "import", metric: "import_cpu_us", value: importCPUSeconds * 1e6 / Double(records),
               unit: "us/record",
               baseline: (processCPUSeconds() - baseCPU) * 1e6 / Double(records)).print()
        Figure(scenario: "import", metric: "import_peak_rss_mb", value: importRSS, unit: "MB").print()

        // Export: every record of the type, as `stratus records export` writes it, to a sink that keeps nothing.
        Self.resetPeakRSS()
        var exported = 0, written = 0
        let exportMillis = try millis {
            exported = try RecordExporter(env: env, database: .publicDatabase).run { written += $0.count }
        }
        precondition(exported == records, "exported \(exported) of \(records)")
        Figure(scenario: "import", metric: "export_rate", value: Double(records) / exportMillis * 1000,
               unit: "records/s").print()
        Figure(scenario: "import", metric: "export_mb", value: Double(written) / 1_048_576, unit: "MB").print()
        Figure(scenario: "import", metric: "export_peak_rss_mb", value: peakRSSMegabytes(), unit: "MB").print()
    }

    /// Starts the peak-RSS count (VmHWM) afresh (Linux: writing 5 to clear_refs).
    static func resetPeakRSS() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }
}
