import ArgumentParser
import Foundation
import StratusModel
import GRDB
import StratusStore

/// The plain-SQL side of `api`'s `modify_vs_sql_ratio`, in a process of its own: the same records (names, fields,
/// batches of 200 in one transaction each) inserted into one hand-made table with the same B-tree indexes and a
/// full-text table, synced on every commit as the server is by default. The table first holds the benchmark's
/// records, as the server's does: into an empty table every index insert lands on the last page, and each commit
/// wrote a few pages where the server's wrote a random leaf per index per record.
///
/// A process of its own because `api` reports the serving process's `peak_rss_mb`: run inside it, this baseline's
/// page cache (the same budget as the server's) and the 100,000 rows it loads counted as the server's, and pushed
/// the peak from about 250 MB to 300–325 MB in half the runs. Prints the rate (records/s) on a line of its own.
struct ModifyBaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "modify-baseline",
                                                    abstract: "api's plain-SQL modify baseline (run by api).",
                                                    shouldDisplay: false)
    @Option var path: String
    @Option var records: Int
    @Option var modifies: Int
    /// The api run's label, which its record names carry.
    @Option var label: String
    @Option(name: .customLong("cache-megabytes")) var cacheMegabytes: Int

    func run() throws {
        CacheBudget.apply(megabytes: cacheMegabytes)
        let plain = try Baseline(path: path, synchronous: "FULL")
        var fill = SplitMix(seed: 42)
        var loaded: [BenchRow] = []
        for i in 0..<records {
            loaded.append(BenchRow.make(i, &fill))
            if loaded.count == 10_000 || i == records - 1 {
                try plain.insert(loaded)
                loaded.removeAll(keepingCapacity: true)
            }
        }
        try plain.queue.writeWithoutTransaction { db in _ = try Row.fetchOne(db,
                sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        var batches: [[BenchRow]] = []
        for c in 0..<4 {
            for i in 0..<(modifies / 4) {
                var r = SplitMix(seed: UInt64(c * 1_000_003 + i))
                batches.append((0..<200).map { k in
                    var row = BenchRow.make(k, &r)
                    row.name = "m-\(label)-\(c)-\(i)-\(k)"
                    return row
                })
            }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        for b in batches { try plain.insert(b) }
        let created = Double(batches.count * 200)
        emit("\(created / (Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9))")
    }

    /// Runs this command in a child process of the running benchmark and returns its rate.
    static func measure(path: String, records: Int, modifies: Int, label: String) throws -> Double {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        p.arguments = ["modify-baseline", "--path", path, "--records", "\(records)", "--modifies", "\(modifies)",
                       "--label", label,
                       "--cache-megabytes", "\(CacheBudget.megabytes)"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0, let rate = Double(String(decoding: data,
                                                                 as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchFailure("modify-baseline failed (exit \(p.terminationStatus))")
        }
        return rate
    }
}
