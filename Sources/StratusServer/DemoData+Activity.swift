import Foundation
import StratusModel
import StratusStore

/// A day of made-up traffic for the demo container, so Telemetry and Logs open on charts and entries: requests
/// following a daily curve across the operations an app makes, a few errors, and record and storage samples. The
/// console marks everything before the demo's creation as generated (see `Console.demo`).
extension DemoData {
    /// Operations an app calls, with how often and how long (µs) each takes, and the error it sometimes meets.
    static let traffic: [(operation: CloudKitOperation, database: String, weight: Int, micros: ClosedRange<Int>,
                          error: (code: String, status: Int)?)] = [
        (.recordsQuery, "public", 30, 900...6_000, nil),
        (.recordsLookup, "private", 18, 300...2_000, ("NOT_FOUND", 404)),
        (.recordsModify, "private", 14, 1_500...9_000, ("CONFLICT", 409)),
        (.changesZone, "private", 12, 400...3_000, nil),
        (.changesDatabase, "private", 8, 300...1_500, nil),
        (.zonesList, "private", 5, 200...900, nil),
        (.subscriptionsModify, "private", 2, 800...2_500, nil),
        (.assetsUpload, "private", 3, 5_000...40_000, ("QUOTA_EXCEEDED", 413)),
        (.usersCurrent, "public", 8, 150...600, ("AUTHENTICATION_REQUIRED", 421)),
    ]

    /// Writes the generated day (ending a minute before `now`) into the request log and telemetry.
    public static func generateActivity(requestLog: RequestLog, telemetry: Telemetry, users: [DemoUser],
                                        store: ServerStore,
                                        now: Int64 = WallClock.nowMillis()) {
        var rng = SplitMix(seed: 29)
        let weights = traffic.reduce(0) { $0 + $1.weight }
        let firstMinute = now / 60_000 - 1_440
        for env in [ContainerEnvironment.development, .production] {
            let scale = env == .development ? 1.0 : 0.4
            for m in 0..<1_440 {
                let minute = firstMinute + Int64(m)
                // Busier in the (UTC) afternoon, quiet at night.
                let hour = Double((minute % 1_440)) / 60
                let rate = scale * (1.5 + 4 * max(0, sin((hour - 6) / 24 * 2 * .pi)))
                let count = Int(rate) + (Double(rng.next() % 1_000) / 1_000 < rate - Double(Int(rate)) ? 1 : 0)
                for _ in 0..<count {
                    var pick = Int(rng.next() % UInt64(weights))
                    let op = traffic.first { pick -= $0.weight; return pick < 0 } ?? traffic[0]
                    let failed = op.error != nil && rng.next() % 100 < 3
                    let user = users[Int(rng.next() % UInt64(users.count))]
                    let micros = op.micros.lowerBound + Int(rng.next() % UInt64(op.micros.count))
                    let entry = RequestLogEntry(at: minute * 60_000 + Int64(rng.next() % 60_000),
                                                container: container.rawValue, environment: env.rawValue,
                                                operation: op.operation.rawValue, database: op.database, user: user.userRecordName,
                                                status: failed ? op.error!.status : 200, errorCode: failed ? op.error!.code : nil,
                                                durationMicroseconds: failed ? micros / 3 : micros, uuid: failed ? UUID().uuidString.lowercased() : nil)
                    requestLog.append(entry)
                    telemetry.record(entry)
                }
                if m % 10 == 0, let e = try? store.environment(container,
                                                               env), let records = try? e.records.recordCount(), let usage = try? e.quota.storageUsage() {
                    // The store as it is now, grown into over the day.
                    let share = 0.6 + 0.4 * Double(m) / 1_440
                    telemetry.sample(container: container.rawValue, environment: env.rawValue,
                                     records: Int64(Double(records) * share),
                                     bytes: Int64(Double(usage.totalBytes) * share), at: minute * 60_000)
                }
            }
            requestLog.flush()
        }
        telemetry.flush()
    }
}
