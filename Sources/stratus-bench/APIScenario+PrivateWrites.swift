import Foundation
import StratusModel
import StratusPostgres
import StratusStore

/// `concurrent_private_writes_per_s` (PostgreSQL): what a deployment of many users writes together. 64 users, each
/// signed in on a connection of their own and creating one record per `records/modify` in their own private zone,
/// through two nodes on the one database (connections alternate between them); the baseline is the same 64
/// connections all writing into one zone of one user, where an order per zone cannot spread the writes. Beside it:
/// the p99 of a request, the processor time of this process (both nodes and the clients) and of PostgreSQL's
/// processes, and PostgreSQL's WAL syncs and their time (`pg_stat_wal`; the time needs `track_wal_io_timing`,
/// which the benchmark turns on when it may), so that a figure from a 2-core machine can be read.
extension APIScenario {
    static let writerCount = 64

    func concurrentPrivateWrites(store: ServerStore, container: ContainerID, apiToken: String, ports: [UInt16],
                                 run: String) throws {
        guard let url = postgresURL else { return }
        let env = try store.environment(container, .production)
        var tokens: [String] = []
        for u in 0..<Self.writerCount {
            let user = "_" + String(format: "%032x", 0xc0ffee_0000 + u)
            let db = DatabaseID.privateDatabase(of: user)
            if try !env.zones.all(in: db).contains(where: { $0.zoneID.zoneName == "Inbox" }) { try env.zones.createZone(ZoneID(zoneName: "Inbox"), in: db) }
            let token = try store.accounts.createWebAuthToken(container: container, environment: .production,
                                                              userRecordName: user, lifetime: AccountStore.longSession)
            tokens.append(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        }
        let path = "/database/1/\(container.rawValue)/production/private/records/modify"
        let tokensByConnection = tokens
        /// Connection `c` writes as the user `writer(c)` into that user's Inbox.
        func writes(_ side: String, _ writer: @escaping @Sendable (Int) -> Int) -> @Sendable (Int, Int) -> [UInt8] {
            { c, i in
                let body = #"{"zoneID":{"zoneName":"Inbox"},"operations":[{"operationType":"create","record":{"recordName":"w-\#(run)-\#(side)-\#(c)-\#(i)","recordType":"Bench","fields":{"title":{"value":"note \#(i)"},"count":{"value":\#(i)}}}}]}"#
                return LoadClient.request("POST",
                                          "\(path)?ckAPIToken=\(apiToken)&ckWebAuthToken=\(tokensByConnection[writer(c)])", body: Data(body.utf8))
            }
        }
        let check: @Sendable (Int,
                              [UInt8]) -> Bool = { status, body in status == 200 && APIScenario.find(APIScenario.serverErrorCode, in: body, from: 0) == nil }
        let counters = try PostgresCounters(url: url)
        let perConnection = max(1, privateWrites / Self.writerCount)
        _ = try LoadClient.run(ports: ports, connections: Self.writerCount, perConnection: 2, make: writes("warm",
                { $0 }), check: check)
        let (oneZone, oneUsage) = try counters.measure { try LoadClient.run(ports: ports, connections: Self.writerCount,
                perConnection: perConnection, make: writes("one", { _ in 0 }), check: check) }
        let (ownZones, ownUsage) = try counters.measure { try LoadClient.run(ports: ports,
                connections: Self.writerCount, perConnection: perConnection, make: writes("own", { $0 }),
                check: check) }
        let total = Double(perConnection * Self.writerCount)
        Figure(scenario: "api", metric: "concurrent_private_writes_per_s", value: total / ownZones.seconds,
               unit: "records/s", baseline: total / oneZone.seconds).print()
        Figure(scenario: "api", metric: "concurrent_private_writes_p99_ms", value: percentile(ownZones.latencies, 0.99),
               unit: "ms",
               baseline: percentile(oneZone.latencies, 0.99)).print()
        Figure(scenario: "api", metric: "concurrent_private_writes_stratus_cpu_percent", value: ownUsage.stratusCPU,
               unit: "% of one core", baseline: oneUsage.stratusCPU).print()
        Figure(scenario: "api", metric: "concurrent_private_writes_postgres_cpu_percent", value: ownUsage.postgresCPU,
               unit: "% of one core", baseline: oneUsage.postgresCPU).print()
        Figure(scenario: "api", metric: "concurrent_private_writes_wal_syncs_per_s", value: ownUsage.walSyncs,
               unit: "syncs/s", baseline: oneUsage.walSyncs).print()
        Figure(scenario: "api", metric: "concurrent_private_writes_wal_sync_ms_per_s",
               value: ownUsage.walSyncMilliseconds, unit: "ms/s", baseline: oneUsage.walSyncMilliseconds).print()
    }
}

/// Processor time of this process and of PostgreSQL's processes, and PostgreSQL's WAL syncs, over a measured run.
struct PostgresCounters {
    let connection: PostgresConnection

    struct Usage {
        /// Percent of one core, over the run's wall time.
        var stratusCPU = 0.0, postgresCPU = 0.0
        /// Per second of the run.
        var walSyncs = 0.0, walSyncMilliseconds = 0.0
    }

    init(url: String) throws {
        connection = try PostgresConnection(url: url)
        // Sync times are counted only with track_wal_io_timing (a superuser's setting); without it they read 0.
        _ = try? connection.execute("ALTER SYSTEM SET track_wal_io_timing = on")
        _ = try? connection.execute("SELECT pg_reload_conf()")
    }

    func measure<T>(_ body: () throws -> T) throws -> (T, Usage) {
        let cpu0 = processCPUSeconds(), pg0 = Self.postgresCPUSeconds(), wal0 = try wal()
        let t0 = DispatchTime.now().uptimeNanoseconds
        let result = try body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        let cpu1 = processCPUSeconds(), pg1 = Self.postgresCPUSeconds(), wal1 = try wal()
        let usage = Usage(stratusCPU: (cpu1 - cpu0) / seconds * 100, postgresCPU: (pg1 - pg0) / seconds * 100,
                          walSyncs: (wal1.syncs - wal0.syncs) / seconds, walSyncMilliseconds: (wal1.milliseconds - wal0.milliseconds) / seconds)
        return (result, usage)
    }

    private func wal() throws -> (syncs: Double, milliseconds: Double) {
        var out = (0.0, 0.0)
        try connection.query("SELECT wal_sync::float8, wal_sync_time::float8 FROM pg_stat_wal") { row in out = (row.double(0) ?? 0, row.double(1) ?? 0) }
        return out
    }

    /// The processor time of every process named `postgres` on this machine (the server and its backends).
    static func postgresCPUSeconds() -> Double {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
        return pids.reduce(0) { sum, pid in
            let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm",
                                    encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            return comm == "postgres" ? sum + processCPUSeconds(pid: pid) : sum
        }
    }
}
