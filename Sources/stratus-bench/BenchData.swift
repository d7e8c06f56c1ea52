import Foundation
import StratusModel
import StratusStore

/// The benchmark's records: one type with ten fields, generated the same way for the store and the baseline.
struct BenchRow {
    var name, title, body: String
    var count: Int64
    var score: Double
    var at: Int64
    var owner: String
    var lat, lon: Double
    var tags: [String]
    var nums: [Int64]
    var blob: Data
    /// One of 20: each matches about 5% of the records (the api scenario's everyday list query).
    var category: String = ""

    static let titles = 5_000
    static let categories = 20
    static let words = 1_000
    static let tagVocabulary = 5_000
    /// Points fall in a box of about 1,100 km × 760 km.
    static let latRange = 40.0..<50.0
    static let lonRange = 0.0..<10.0

    static func make(_ i: Int, _ rng: inout SplitMix) -> BenchRow {
        BenchRow(
            name: String(format: "rec-%08d", i),
            title: "title-\(i % titles)",
            body: (0..<6).map { _ in word(Int(rng.next() % UInt64(words))) }.joined(separator: " "),
            count: Int64(rng.next() % 1_000_000),
            score: Double(rng.next() % 1_000_000) / 1000,
            at: 1_700_000_000_000 + Int64(i) * 1000,
            owner: "user-\(i % 1000)",
            lat: latRange.lowerBound + Double(rng.next() % 1_000_000) / 1_000_000 * 10,
            lon: lonRange.lowerBound + Double(rng.next() % 1_000_000) / 1_000_000 * 10,
            tags: (0..<3).map { _ in "tag-\(rng.next() % UInt64(tagVocabulary))" },
            nums: (0..<3).map { _ in Int64(rng.next() % 10_000) },
            blob: Data((0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) }),
            category: "cat-\(i % categories)"
        )
    }

    static func word(_ n: Int) -> String {
        let syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "du"]
        return syllables[n % 10] + syllables[(n / 10) % 10] + syllables[(n / 100) % 10] + "x"
    }
}

extension BenchRow {
    /// Rows 0..<count written through the store in batches of 200, as an app's `records/modify` would.
    static func load(_ count: Int, into env: EnvironmentStore, _ db: DatabaseID, zone: ZoneID, as user: String) throws {
        stderr("loading \(count) records into Stratus…")
        var rng = SplitMix(seed: 42)
        var batch: [RecordOperation] = []
        for i in 0..<count {
            batch.append(RecordOperation(.create, StoreScenario.record(BenchRow.make(i, &rng))))
            if batch.count == 200 || i == count - 1 {
                _ = try env.records.modify(batch, in: db, zoneID: zone, actor: RequestActor(userRecordName: user))
                batch.removeAll(keepingCapacity: true)
            }
        }
    }
}
