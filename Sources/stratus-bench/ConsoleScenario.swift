import ArgumentParser
import Foundation
import GRDB
import StratusModel
import StratusStore

/// `stratus-bench console --records N`: the console's pages served by the release `stratus serve`, measured by the
/// bench's own keep-alive client on loopback beside Datasette (`pip install datasette`, suggest_facets off) serving
/// the same rows from an
/// equivalent SQLite table, in the same run.
struct ConsoleScenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "console",
                                                    abstract: "Console page figures against Datasette.")
    @Option(help: "How many records to load.") var records: Int = 1_000_000
    @Option(help: "Seconds of load per figure.") var seconds: Int = 10
    @Option(help: "Connections.") var connections: Int = 8
    @Flag(help: "Measure only the one-record page and its JSON face (record_page_rps, record_page_cpu_us).")
    var recordPagesOnly = false
    @Option(help: "Where to build the data (temporary by default; removed afterwards). An existing one with the same record count is reused.")
    var data: String?

    static let container = "iCloud.com.example.Bench"

    func run() async throws {
        let root = data.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory.appendingPathComponent("stratus-console-bench-\(UUID().uuidString)")
        defer { if data == nil { try? FileManager.default.removeItem(at: root) } }
        let stratusData = root.appendingPathComponent("stratus")
        let sqlitePath = root.appendingPathComponent("bench.db").path

        // Stratus: the public database of Development, loaded through the store.
        let cookie: String
        do {
            let store = try ServerStore(dataDirectory: stratusData)
            let container = try ContainerID(Self.container)
            if try !store.containerExists(container) || store.environment(container,
                    .development).records.recordCount() != records {
                try? FileManager.default.removeItem(at: root)
                try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
                try load(into: stratusData, sqlite: sqlitePath)
            } else if try !Self.datasetteHasCategory(sqlitePath) {
                try? FileManager.default.removeItem(atPath: sqlitePath)
                try loadDatasette(sqlitePath)
            }
            let fresh = try ServerStore(dataDirectory: stratusData)
            let admin = try fresh.admins.all().first ?? fresh.admins.createAdmin(email: "bench@example.com",
                    password: "bench password 123")
            cookie = "stratus_session=" + (try fresh.admins.createAdminSession(admin).token)
        }

        let port = UInt16(20_000 + Int.random(in: 0..<2_000))
        stderr("starting stratus serve on \(port) …")
        let server = try launchStratus(data: stratusData, port: port)
        defer { server.terminate(); server.waitUntilExit() }
        let base = "/console/\(Self.container)/development/public"

        // One record as its page, against the same record's JSON face (`?format=json`: the same route, scope,
        // session, lookup and access checks, without the rendering) as the baseline of its processor time.
        var rng = SplitMix(seed: 7)
        let recordPages = (0..<256).map { _ in "\(base)/records/_defaultZone/" + String(format: "rec-%08d",
                Int(rng.next() % UInt64(records))) }
        let pid = server.processIdentifier
        let (json, record) = try pagesInTurn(port: port, pid: pid, (recordPages.map { $0 + "?format=json" },
                                                                    "recordChangeTag"),
                                             (recordPages, "Change tag"), cookie: cookie)
        Figure(scenario: "console", metric: "record_page_rps", value: record.rps, unit: "requests/s",
               baseline: json.rps).print()
        Figure(scenario: "console", metric: "record_page_cpu_us", value: record.cpuMicros, unit: "us/request",
               baseline: json.cpuMicros).print()
        if !recordPagesOnly {
            // The same 64 filters for both sides: one title (about 200 rows each at 1M), sorted by count.
            let titles = (0..<64).map { "title-\(($0 * 7_919) % min(BenchRow.titles, max(records, 1)))" }
            let stratusPages = titles.map { "\(base)/records?type=Bench&filter=title%20EQUALS%20\($0)&sort=count" }
            let page = try pageRun(port: port, pid: pid, paths: stratusPages, cookie: cookie, check: "rec-")
            var baseline: PageRun?
            if let ds = try startDatasette(sqlitePath) {
                // SIGKILL: Datasette's server waits out a graceful shutdown on SIGTERM indefinitely here.
                defer { kill(ds.process.processIdentifier, SIGKILL); ds.process.waitUntilExit() }
                let dsPages = titles.map { "/bench/bench?title=\($0)&_sort=count&_size=200" }
                baseline = try pageRun(port: ds.port, pid: ds.process.processIdentifier, paths: dsPages, cookie: nil,
                                       check: "rec-")
            }
            Figure(scenario: "console", metric: "records_page_rps", value: page.rps, unit: "requests/s",
                   baseline: baseline?.rps).print()
            Figure(scenario: "console", metric: "records_page_p99_ms", value: page.p99, unit: "ms",
                   baseline: baseline?.p99).print()

            // The everyday list query on the records page: category = x (5% of the records), count descending, 200
            // rows, with only single-field indexes declared on both sides. Stratus learns the shape from the page's
            // own queries (a warm-up, then until the page says an automatic index serves it); Datasette gets the same
            // filter.
            let categories = (0..<BenchRow.categories).map { "cat-\($0)" }
            let shapePages = categories.map {
                "\(base)/records?type=Bench&filter=category%20EQUALS%20\($0)&sort=-count"
            }
            _ = try pageRun(port: port, pid: pid, paths: shapePages, cookie: cookie, check: "rec-")
            let learnedIn = try waitUntilServedByAutomaticIndex(port: port, path: shapePages[0], cookie: cookie)
            Figure(scenario: "console", metric: "shape_learned_s", value: learnedIn, unit: "s").print()
            let shapePage = try pageRun(port: port, pid: pid, paths: shapePages, cookie: cookie, check: "rec-")
            var shapeBaseline: PageRun?
            if let ds = try startDatasette(sqlitePath) {
                defer { kill(ds.process.processIdentifier, SIGKILL); ds.process.waitUntilExit() }
                shapeBaseline = try pageRun(port: ds.port, pid: ds.process.processIdentifier,
                                            paths: categories.map { "/bench/bench?category=\($0)&_sort_desc=count&_size=200" },
                                            cookie: nil, check: "rec-")
            }
            Figure(scenario: "console", metric: "shape_records_page_rps", value: shapePage.rps, unit: "requests/s",
                   baseline: shapeBaseline?.rps).print()
            Figure(scenario: "console", metric: "shape_records_page_p99_ms", value: shapePage.p99, unit: "ms",
                   baseline: shapeBaseline?.p99).print()
            let health = try pageRun(port: port, pid: pid, paths: ["/-/health"], cookie: nil, check: "ok")
            Figure(scenario: "console", metric: "health_rps", value: health.rps, unit: "requests/s").print()
        }
        Figure(scenario: "console", metric: "serve_rss_mb", value: Self.peakRSS(of: server.processIdentifier),
               unit: "MB").print()
    }

    /// Both sides get the same rows: Stratus through its store, Datasette's table by plain inserts.
    func load(into stratusData: URL, sqlite: String) throws {
        let store = try ServerStore(dataDirectory: stratusData)
        let container = try ContainerID(Self.container)
        try store.createContainer(container)
        try store.lifecycle.importSchema(try SchemaParser.parse(StoreScenario.schema), into: container)
        let env = try store.environment(container, .development)
        try BenchRow.load(records, into: env, .publicDatabase, zone: .defaultZone, as: "_bench")
        try loadDatasette(sqlite)
    }

    /// Datasette's table: the same rows, with the single-field indexes the Stratus schema declares.
    func loadDatasette(_ sqlite: String) throws {
        stderr("loading \(records) records into the Datasette table…")
        let q = try DatabaseQueue(path: sqlite)
        try q.write { db in
            try db.execute(sql: """
                CREATE TABLE bench(rname TEXT PRIMARY KEY, title TEXT, body TEXT, count INTEGER, score REAL, at INTEGER, owner TEXT,
                    lat REAL, lon REAL, tags TEXT, nums TEXT, modified INTEGER, category TEXT);
                """)
            var rng = SplitMix(seed: 42)
            let st = try db.makeStatement(sql: "INSERT INTO bench VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")
            for i in 0..<records {
                let r = BenchRow.make(i, &rng)
                try st.execute(arguments: [r.name, r.title, r.body, r.count, r.score, r.at, r.owner, r.lat, r.lon,
                                           "[" + r.tags.map { "\"\($0)\"" }.joined(separator: ",") + "]",
                                           "[" + r.nums.map(String.init).joined(separator: ",") + "]", r.at, r.category])
            }
            for c in ["title", "count", "score", "at", "owner",
                      "category"] { try db.execute(sql: "CREATE INDEX bench_\(c) ON bench(\(c))") }
        }
    }

    static func datasetteHasCategory(_ sqlite: String) throws -> Bool {
        guard FileManager.default.fileExists(atPath: sqlite) else { return false }
        return try DatabaseQueue(path: sqlite).read { db in try db.columns(in: "bench").contains { $0.name == "category" } }
    }

    func launchStratus(data: URL, port: UInt16) throws -> Process {
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("stratus")
        let cwd = FileManager.default.currentDirectoryPath
        guard FileManager.default.fileExists(atPath: cwd + "/Templates/records.mustache") else { throw BenchFailure("run from the repository root (Templates/ is needed)") }
        let p = Process()
        p.executableURL = bin
        p.arguments = ["serve", "--port", String(port), "--data", data.path, "--templates", cwd + "/Templates",
                       "--public", cwd + "/Public"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        try Self.waitForHealth(port: port, path: "/-/health")
        return p
    }

    func startDatasette(_ path: String) throws -> (process: Process, port: UInt16)? {
        // The interpreter itself, not a wrapper script (pyenv's shims outlive a terminate while their child runs).
        let find = Process()
        find.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        find.arguments = ["python3", "-c", "import sys, datasette; print(sys.executable)"]
        let found = Pipe()
        find.standardOutput = found
        find.standardError = FileHandle.nullDevice
        try find.run()
        let python = String(decoding: found.fileHandleForReading.readDataToEndOfFile(),
                            as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        find.waitUntilExit()
        guard find.terminationStatus == 0, !python.isEmpty else {
            stderr("datasette not found (pip install datasette): printing Stratus figures without a baseline")
            return nil
        }
        let port = UInt16(22_000 + Int.random(in: 0..<2_000))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-m", "datasette", "serve", path, "--port", String(port), "--setting", "suggest_facets", "off",
                       "--setting", "sql_time_limit_ms", "10000"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        try Self.waitForHealth(port: port, path: "/-/versions.json")
        return (p, port)
    }

    static func waitForHealth(port: UInt16, path: String) throws {
        for _ in 0..<300 {
            if let c = try? LoadClient(port: port), let (s, _) = try? c.send(LoadClient.request("GET",
                    path)), s == 200 { return }
            usleep(100_000)
        }
        throw BenchFailure("server on port \(port) did not start")
    }

        /// Requests the page every two seconds until it says an automatic index served it (the server flushes its
    /// shape counts once a minute and then builds); returns the seconds it took.
    func waitUntilServedByAutomaticIndex(port: UInt16, path: String, cookie: String) throws -> Double {
        let started = DispatchTime.now().uptimeNanoseconds
        while DispatchTime.now().uptimeNanoseconds - started < 600_000_000_000 {
            let c = try LoadClient(port: port)
            let (status, body) = try c.send(LoadClient.request("GET", path, headers: ["Cookie": cookie]))
            if status == 200, String(decoding: body, as: UTF8.self).contains(#/class="served-by">t\d+_auto_/#) {
                return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            }
            usleep(2_000_000)
        }
        throw BenchFailure("the records page's shape got no automatic index within 10 minutes")
    }

    /// What one figure's load measured: requests per second, the 99th percentile, and the serving process's
    /// processor time per request (its /proc stat before and after; the load client runs in this process).
    struct PageRun { var rps: Double; var p99: Double; var cpuMicros: Double }

    /// The paths in turn on `connections` keep-alive connections: one checked request per path first, then an
    /// unmeasured warm-up of a third of the time (the figures are of a server in service, not of its first reads
    /// from disk), then `seconds` of load, sized from the warm-up's rate.
    func pageRun(port: UInt16, pid: Int32, paths: [String], cookie: String?, check: String) throws -> PageRun {
        let load = try PageLoad(port: port, paths: paths, cookie: cookie, check: check, connections: connections,
                                seconds: seconds)
        return try load.measure(pid: pid, seconds: Double(seconds)).run
    }

    /// Two loads measured in turn, `rounds` times each for a share of `seconds` after both warm-ups: each figure is
    /// the median of its rounds. On a machine whose speed drifts from one second to the next (another guest, a
    /// background pass of the server's), a figure measured only after its baseline's ten seconds took that drift
    /// for a difference; in turn, both see the same moments.
    func pagesInTurn(port: UInt16, pid: Int32, _ a: (paths: [String], check: String), _ b: (paths: [String],
                     check: String), cookie: String?, rounds: Int = 5) throws -> (PageRun, PageRun) {
        let first = try PageLoad(port: port, paths: a.paths, cookie: cookie, check: a.check, connections: connections,
                                 seconds: seconds)
        let second = try PageLoad(port: port, paths: b.paths, cookie: cookie, check: b.check,
                                  connections: connections, seconds: seconds)
        var runs: ([PageLoad.Measured], [PageLoad.Measured]) = ([], [])
        for _ in 0..<rounds {
            runs.0.append(try first.measure(pid: pid, seconds: Double(seconds) / Double(rounds)))
            runs.1.append(try second.measure(pid: pid, seconds: Double(seconds) / Double(rounds)))
        }
        return (PageLoad.Measured.median(runs.0), PageLoad.Measured.median(runs.1))
    }

    /// The server's peak resident memory (VmHWM), from /proc.
    static func peakRSS(of pid: Int32) -> Double {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let m = s.firstMatch(of: /VmHWM:\s+(\d+) kB/), let kb = Double(m.1) else { return 0 }
        return kb / 1024
    }
}
