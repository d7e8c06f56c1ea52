import Foundation
import Testing
import StratusModel
import StratusStore

/// The telemetry time series adds requests up by minute and operation kind, keeps error codes (injected faults
/// apart) and size samples, answers a range as evenly spaced points, and forgets what is older than it keeps.
@Suite struct TelemetryTests {
    static let minute: Int64 = 60_000

    func entry(_ at: Int64, _ operation: String, status: Int = 200, code: String? = nil, micros: Int = 1_000, injected: Bool = false, env: String = "development") -> RequestLogEntry {
        RequestLogEntry(at: at, container: "iCloud.t", environment: env, operation: operation, database: "public", user: nil, status: status,
                        errorCode: code, durationMicroseconds: micros, uuid: nil, injected: injected)
    }

    @Test func requestsErrorsAndSamplesLandInTheirPoints() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("telemetry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let t = try Telemetry(file: dir.appendingPathComponent("telemetry.sqlite"), flushing: false)
        let now: Int64 = 1_800_000_000_000 / Self.minute * Self.minute + 30_000
        // Ten minutes ago: 100 queries of 1 ms, one slow one; one injected ZONE_BUSY and one real BAD_REQUEST on modify.
        for _ in 0..<100 { t.record(entry(now - 10 * Self.minute, "records/query", micros: 800)) }
        t.record(entry(now - 10 * Self.minute, "records/query", micros: 3_000_000))
        t.record(entry(now - 10 * Self.minute, "records/modify", status: 503, code: "ZONE_BUSY", injected: true))
        t.record(entry(now - 10 * Self.minute, "records/modify", status: 400, code: "BAD_REQUEST"))
        t.record(entry(now, "zones/changes"))
        t.record(entry(now, "records/query", env: "production"))   // another environment
        t.flush()
        // A later flush adds to the same minute rather than replacing it.
        t.record(entry(now - 10 * Self.minute, "records/query", micros: 800))
        t.sample(container: "iCloud.t", environment: "development", records: 42, bytes: 4096, at: now - 5 * Self.minute)

        let hour = try t.report(container: "iCloud.t", environment: "development", range: .hour, now: now)
        #expect(hour.points.count == 60 && hour.points.last?.minute == now / Self.minute)
        let p = try #require(hour.points.first { $0.minute == now / Self.minute - 10 })
        #expect(p.requests == 104 && p.errors == 2 && p.injected == 1)
        #expect(p.errorsByCode == ["ZONE_BUSY": 1, "BAD_REQUEST": 1])
        let q = try #require(p.latency[.query])
        #expect(q.total == 102)
        #expect(try #require(q.quantile(0.5)) <= 1.0)
        #expect(try #require(q.quantile(0.999)) > 1_000)
        #expect(hour.points.last?.latency[.changes]?.total == 1)
        #expect(hour.points.first { $0.minute == now / Self.minute - 5 }?.records == 42)
        #expect(hour.errorCodes.sorted() == ["BAD_REQUEST", "ZONE_BUSY"])

        // A day is 96 points of 15 minutes; the same requests fall into them.
        let day = try t.report(container: "iCloud.t", environment: "development", range: .day, now: now)
        #expect(day.points.count == 96 && day.points.reduce(0) { $0 + $1.requests } == 105)
        let production = try t.report(container: "iCloud.t", environment: "production", range: .week, now: now)
        #expect(production.points.count == 168 && production.points.reduce(0) { $0 + $1.requests } == 1)
    }

    @Test func minutesPastTheRetentionAreForgotten() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("telemetry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("telemetry.sqlite")
        let now = WallClock.nowMillis()
        do {
            let t = try Telemetry(file: file, flushing: false)
            t.record(entry(now - (Telemetry.retention + 5) * Self.minute, "records/query", status: 503, code: "ZONE_BUSY"))
            t.sample(container: "iCloud.t", environment: "development", records: 1, bytes: 1, at: now - (Telemetry.retention + 5) * Self.minute)
            t.record(entry(now - 3 * Self.minute, "records/query"))
            t.flush()   // the first flush of a process prunes
        }
        let reopened = try Telemetry(file: file, flushing: false)
        let week = try reopened.report(container: "iCloud.t", environment: "development", range: .week, now: now + 14 * 86_400_000)
        #expect(week.points.reduce(0) { $0 + $1.requests } == 0)
        let now2 = try reopened.report(container: "iCloud.t", environment: "development", range: .hour, now: now)
        #expect(now2.points.reduce(0) { $0 + $1.requests } == 1)
        // Nothing old is left on disk either.
        let old = try reopened.report(container: "iCloud.t", environment: "development", range: .week, now: now - Telemetry.retention * Self.minute)
        #expect(old.points.allSatisfy { $0.requests == 0 && $0.records == nil })
    }
}
