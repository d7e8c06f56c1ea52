import ArgumentParser
import Foundation
import StratusKit
import StratusModel
import StratusStore

/// `stratus-bench sync`: StratusKit's sync engine against the requests it makes (release build, loopback, the
/// release `stratus serve` in its own process).
/// - `initial_sync_records_per_s`: a fresh engine fetching a zone of `--records` records into an in-memory cache,
///   against the same `records/changes` pages fetched and parsed plainly. Asked: ratio ≥ 0.5.
/// - `send_records_per_s`: `--sends` pending saves sent by the engine, against plain `records/modify` batches of
///   200. Asked: ratio ≥ 0.7.
/// - `change_propagation_p99_ms`: an edit on one device applied on the others through notification → fetch, with
///   `--devices` engines of one user syncing one zone. Asked: p99 ≤ 250 ms with 20 devices.
struct SyncScenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync",
                                                    abstract: "The sync engine's initial sync, sends and change propagation.")
    @Option(help: "Records in the zone a fresh engine fetches.") var records = 100_000
    @Option(help: "Pending saves the engine sends.") var sends = 10_000
    @Option(help: "Devices (engines of one user) for the propagation figure.") var devices = 20
    @Option(help: "Edits made on the first device for the propagation figure.") var edits = 100

    static let container = "iCloud.com.example.SyncBench"
    static let user = "_" + String(repeating: "5b", count: 16)

    func run() async throws {
        let server = try KitBenchServer(container: Self.container, user: Self.user,
                                        extraArguments: ["--max-listeners-per-user", String(max(16, devices + 4))])
        defer { server.stop() }
        func device() -> CKContainer { server.device() }
        let plain = server.plain

        // The zone a fresh engine fetches.
        let zone = CKRecordZone.ID(zoneName: "Synced")
        _ = try await device().privateCloudDatabase.save(CKRecordZone(zoneID: zone))
        stderr("loading \(records) records …")
        var loaded = 0
        while loaded < records {
            let n = min(200, records - loaded)
            _ = try await plain.modify(zone: "Synced", KitScenario.batch(from: loaded, count: n, prefix: "s"))
            loaded += n
        }

        // Initial sync: plain pages, then a fresh engine.
        var t0 = Date()
        let plainCount = try await plain.fetchAll(zone: "Synced")
        let plainRate = Double(plainCount) / Date().timeIntervalSince(t0)
        let cache = BenchCache(zone: zone)
        let fresh = CKSyncEngine(cache.configuration(device().privateCloudDatabase))
        t0 = Date()
        try await fresh.fetchChanges()
        let engineRate = Double(cache.count) / Date().timeIntervalSince(t0)
        guard cache.count == records, plainCount == records else { throw BenchFailure("fetched \(cache.count) and \(plainCount) of \(records)") }
        Figure(scenario: "sync", metric: "initial_sync_records_per_s", value: engineRate, unit: "records/s",
               baseline: plainRate).print()

        // Sends: plain batches into one zone, the engine's into another.
        _ = try await device().privateCloudDatabase.modifyRecordZones(saving: [CKRecordZone(zoneName: "PlainSends"),
                CKRecordZone(zoneName: "EngineSends")], deleting: [])
        t0 = Date()
        var i = 0
        while i < sends {
            let n = min(200, sends - i)
            _ = try await plain.modify(zone: "PlainSends", KitScenario.batch(from: i, count: n, prefix: "p"))
            i += n
        }
        let plainSendRate = Double(sends) / Date().timeIntervalSince(t0)
        let sender = BenchCache(zone: CKRecordZone.ID(zoneName: "EngineSends"))
        sender.fullFields = true
        let sendEngine = CKSyncEngine(sender.configuration(device().privateCloudDatabase))
        for k in 0..<sends { sender.put("e\(k)", "title-\(k % 1000)") }
        sendEngine.state.add(pendingRecordZoneChanges: (0..<sends).map { .saveRecord(CKRecord.ID(recordName: "e\($0)",
                zoneID: sender.zone)) })
        t0 = Date()
        try await sendEngine.sendChanges()
        let engineSendRate = Double(sends) / Date().timeIntervalSince(t0)
        guard sendEngine.state.pendingRecordZoneChanges.isEmpty else { throw BenchFailure("\(sendEngine.state.pendingRecordZoneChanges.count) saves still pending") }
        // The engine holds its delegate weakly, as CloudKit's does: the cache must live until the send is over.
        withExtendedLifetime(sender) {}
        Figure(scenario: "sync", metric: "send_records_per_s", value: engineSendRate, unit: "records/s",
               baseline: plainSendRate).print()

        // Propagation: devices of one user syncing one small zone by notification.
        let live = CKRecordZone.ID(zoneName: "Live")
        _ = try await device().privateCloudDatabase.save(CKRecordZone(zoneID: live))
        var caches: [BenchCache] = [], engines: [CKSyncEngine] = []
        for _ in 0..<devices {
            let c = BenchCache(zone: live)
            var conf = c.configuration(device().privateCloudDatabase)
            conf.automaticallySync = true
            caches.append(c)
            engines.append(CKSyncEngine(conf))
        }
        try await Task.sleep(for: .seconds(2))   // every engine has its subscription and stream
        stderr("propagating \(edits) edits to \(devices - 1) devices …")
        for e in 0..<edits {
            caches[0].put("live", "edit \(e) at \(Date().timeIntervalSince1970)")
            engines[0].state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: "live", zoneID: live))])
            try await Task.sleep(for: .milliseconds(200))
        }
        try await Task.sleep(for: .seconds(2))
        let latencies = caches.dropFirst().flatMap(\.latencies).sorted()
        guard !latencies.isEmpty else { throw BenchFailure("no edit propagated") }
        let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
        Figure(scenario: "sync", metric: "change_propagation_p99_ms", value: p99, unit: "ms").print()
        Figure(scenario: "sync", metric: "change_propagation_p50_ms", value: latencies[latencies.count / 2],
               unit: "ms").print()
        Figure(scenario: "sync", metric: "edits_seen_per_device", value: Double(latencies.count) / Double(devices - 1),
               unit: "edits").print()
        Figure(scenario: "sync", metric: "client_peak_rss_mb", value: peakRSSMegabytes(), unit: "MB").print()
        for e in engines { await e.cancelOperations() }
        withExtendedLifetime(caches) {}
    }
}

/// The smallest app for the engine: titles in memory, with when each fetched edit was made (its title says) and
/// when it arrived.
final class BenchCache: CKSyncEngineDelegate, @unchecked Sendable {
    let zone: CKRecordZone.ID
    private let lock = NSLock()
    private var titles: [String: String] = [:]
    /// The server's last copy of each record, for its change tag (a save of a known record is an update).
    private var copies: [String: CKRecord] = [:]
    /// Records sent carry the same five fields as the plain baseline's (`KitScenario.batch`).
    var fullFields = false
    private var seen = 0
    private(set) var latencies: [Double] = []

    init(zone: CKRecordZone.ID) { self.zone = zone }

    func configuration(_ db: CKDatabase) -> CKSyncEngine.Configuration {
        var c = CKSyncEngine.Configuration(database: db, stateSerialization: nil, delegate: self)
        c.automaticallySync = false
        return c
    }

    var count: Int { lock.lock(); defer { lock.unlock() }; return seen }

    func put(_ name: String, _ title: String) {
        lock.lock()
        titles[name] = title
        lock.unlock()
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .fetchedRecordZoneChanges(let changes): apply(changes.modifications, at: Date().timeIntervalSince1970)
        case .sentRecordZoneChanges(let sent): keep(sent.savedRecords)
        default: break
        }
    }

    private func keep(_ records: [CKRecord]) {
        lock.lock()
        defer { lock.unlock() }
        for r in records { copies[r.recordID.recordName] = r }
    }

    private func copy(_ name: String) -> CKRecord? {
        lock.lock()
        defer { lock.unlock() }
        return copies[name]?.copy() as? CKRecord
    }

    /// Only its own zone: the others in the database are other figures'.
    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext,
                                 syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        CKSyncEngine.FetchChangesOptions(scope: .zoneIDs([zone]))
    }

    private func apply(_ modifications: [CKDatabase.RecordZoneChange.Modification], at now: Double) {
        lock.lock()
        defer { lock.unlock() }
        for m in modifications {
            let title = m.record["title"] as? String ?? ""
            copies[m.recordID.recordName] = m.record
            if titles[m.recordID.recordName] != title {
                titles[m.recordID.recordName] = title
                if let at = title.split(separator: " ").last.flatMap({ Double($0) }) { latencies.append((now - at) * 1000) }
            }
            seen += 1
        }
    }

    private func title(_ name: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return titles[name]
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext,
                                   syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: syncEngine.state.pendingRecordZoneChanges) { id in
            guard let title = self.title(id.recordName) else { return nil }
            let r = self.copy(id.recordName) ?? CKRecord(recordType: "Bench", recordID: id)
            r["title"] = title
            if self.fullFields, let k = Int(id.recordName.drop { !$0.isNumber }) {
                r["count"] = k
                r["score"] = Double(k) / 7
                r["tags"] = ["t\(k % 10)", "all"]
                r["note"] = "a note of some length for record \(k)"
            }
            return r
        }
    }
}
