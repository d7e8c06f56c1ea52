import ArgumentParser
import Foundation
import StratusKit
import StratusModel
import StratusStore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `stratus-bench kit`: what StratusKit costs an app over the wire it speaks (release build, loopback, the release
/// `stratus serve` in its own process, so this process's peak RSS is the client's).
/// - `kit_fetch_records_per_s`: a full `CKFetchRecordZoneChangesOperation` of a zone of `--records` records into
///   `CKRecord`s, against the same `records/changes` pages fetched with URLSession and parsed with
///   JSONSerialization, no `CKRecord` built. The issue asks for a ratio ≥ 0.6.
/// - `kit_save_records_per_s`: `--saves` new records saved through `modifyRecords` in batches of 200, against the
///   same batches sent as plain `records/modify` requests (JSON built by hand) over URLSession. Asked: ≥ 0.8.
/// Rounds alternate the two sides; the figure is each side's best round.
struct KitScenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "kit", abstract: "StratusKit's fetch and save throughput against plain HTTP + JSON.")
    @Option(help: "Records in the fetched zone.") var records = 100_000
    @Option(help: "Records saved per side and round.") var saves = 20_000
    @Option(help: "Rounds (each side once per round).") var rounds = 2

    static let container = "iCloud.com.example.KitBench"
    static let user = "_" + String(repeating: "cb", count: 16)

    func run() async throws {
        let server = try KitBenchServer(container: Self.container, user: Self.user)
        defer { server.stop() }
        let db = server.device().privateCloudDatabase
        let plain = server.plain

        // The fetched zone, loaded with plain requests.
        let zone = CKRecordZone(zoneName: "Fetched")
        _ = try await db.save(zone)
        stderr("loading \(records) records …")
        var loaded = 0
        while loaded < records {
            let n = min(200, records - loaded)
            _ = try await plain.modify(zone: "Fetched", Self.batch(from: loaded, count: n, prefix: "f"))
            loaded += n
        }

        // Fetch: plain pages against the operation, alternating.
        var kitFetch: [Double] = [], plainFetch: [Double] = []
        for round in 0..<rounds {
            stderr("fetch round \(round + 1) …")
            var t0 = Date()
            let plainCount = try await plain.fetchAll(zone: "Fetched")
            plainFetch.append(Double(plainCount) / Date().timeIntervalSince(t0))
            t0 = Date()
            let kitCount = try await Self.fetchAll(db, zone.zoneID)
            kitFetch.append(Double(kitCount) / Date().timeIntervalSince(t0))
            guard kitCount == records, plainCount == records else { throw BenchFailure("fetched \(kitCount) and \(plainCount) of \(records)") }
        }
        Figure(scenario: "kit", metric: "kit_fetch_records_per_s", value: kitFetch.max() ?? 0, unit: "records/s", baseline: plainFetch.max()).print()

        // Save: batches of 200 new records, each side into its own zone.
        var kitSave: [Double] = [], plainSave: [Double] = []
        _ = try await db.modifyRecordZones(saving: [CKRecordZone(zoneName: "KitSaves"), CKRecordZone(zoneName: "PlainSaves")], deleting: [])
        let kitZone = CKRecordZone.ID(zoneName: "KitSaves")
        for round in 0..<rounds {
            stderr("save round \(round + 1) …")
            var t0 = Date()
            var i = 0
            while i < saves {
                let n = min(200, saves - i)
                _ = try await plain.modify(zone: "PlainSaves", Self.batch(from: i, count: n, prefix: "p\(round)-"))
                i += n
            }
            plainSave.append(Double(saves) / Date().timeIntervalSince(t0))
            t0 = Date()
            i = 0
            while i < saves {
                let n = min(200, saves - i)
                let batch = (i..<(i + n)).map { k -> CKRecord in
                    let r = CKRecord(recordType: "Bench", recordID: CKRecord.ID(recordName: "k\(round)-\(k)", zoneID: kitZone))
                    r["title"] = "title-\(k % 1000)"
                    r["count"] = k
                    r["score"] = Double(k) / 7
                    r["tags"] = ["t\(k % 10)", "all"]
                    r["note"] = "a note of some length for record \(k)"
                    return r
                }
                let (results, _) = try await db.modifyRecords(saving: batch, deleting: [])
                for (_, r) in results { _ = try r.get() }
                i += n
            }
            kitSave.append(Double(saves) / Date().timeIntervalSince(t0))
        }
        Figure(scenario: "kit", metric: "kit_save_records_per_s", value: kitSave.max() ?? 0, unit: "records/s", baseline: plainSave.max()).print()
        Figure(scenario: "kit", metric: "kit_client_peak_rss_mb", value: peakRSSMegabytes(), unit: "MB").print()
    }

    /// The guide's fetch: one operation, every page, records counted in `recordWasChangedBlock`.
    static func fetchAll(_ db: CKDatabase, _ zone: CKRecordZone.ID) async throws -> Int {
        final class Count: @unchecked Sendable { var n = 0; var error: (any Error)? }
        let count = Count()
        let op = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zone], configurationsByRecordZoneID: [zone: .init(previousServerChangeToken: nil)])
        op.recordWasChangedBlock = { _, result in if case .success(let r) = result, r["title"] != nil { count.n += 1 } }
        op.fetchRecordZoneChangesResultBlock = { if case .failure(let e) = $0 { count.error = e } }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            op.completionBlock = { c.resume() }
            db.add(op)
        }
        if let e = count.error {
            // A zone's failure says why only in its partial errors: print them, so a failed run can be read.
            if let ck = e as? CKError, let partial = ck.partialErrorsByItemID { stderr("fetch failed: \(partial)") }
            throw e
        }
        return count.n
    }

    /// The records a batch saves, as `records/modify` operations.
    static func batch(from start: Int, count: Int, prefix: String) -> [[String: Any]] {
        (start..<(start + count)).map { k in
            ["operationType": "create", "record": [
                "recordName": "\(prefix)\(k)", "recordType": "Bench",
                "fields": [
                    "title": ["value": "title-\(k % 1000)", "type": "STRING"], "count": ["value": k, "type": "INT64"],
                    "score": ["value": Double(k) / 7, "type": "DOUBLE"], "tags": ["value": ["t\(k % 10)", "all"], "type": "STRING_LIST"],
                    "note": ["value": "a note of some length for record \(k)", "type": "STRING"],
                ] as [String: Any],
            ] as [String: Any]]
        }
    }
}

/// The baseline: the same requests over URLSession, JSON parsed with JSONSerialization, no StratusKit types.
struct PlainClient: Sendable {
    let base: URL
    let query: String
    var container = KitScenario.container

    func post(_ action: String, _ body: [String: Any]) async throws -> [String: Any] {
        var req = URLRequest(url: URL(string: "\(base.absoluteString)/database/1/\(container)/development/private/\(action)?\(query)")!)
        req.httpMethod = "POST"
        req.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await URLSession.shared.data(for: req)
        guard (response as? HTTPURLResponse)?.statusCode == 200, let j = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw BenchFailure("\(action): \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        return j
    }

    func modify(zone: String, _ operations: [[String: Any]]) async throws -> [String: Any] {
        let j = try await post("records/modify", ["operations": operations, "zoneID": ["zoneName": zone], "atomic": false])
        for r in j["records"] as? [[String: Any]] ?? [] where r["serverErrorCode"] != nil { throw BenchFailure("records/modify: \(r)") }
        return j
    }

    func fetchAll(zone: String) async throws -> Int {
        var token: String?
        var n = 0
        while true {
            var body: [String: Any] = ["zoneID": ["zoneName": zone]]
            if let token { body["syncToken"] = token }
            let j = try await post("records/changes", body)
            for r in j["records"] as? [[String: Any]] ?? [] where (r["fields"] as? [String: Any])?["title"] != nil { n += 1 }
            token = j["syncToken"] as? String
            if j["moreComing"] as? Bool != true { return n }
        }
    }
}
