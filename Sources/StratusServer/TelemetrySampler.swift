import Foundation
import StratusHTTP
import StratusStore
import Synchronization

/// Samples records and storage of every open container environment into telemetry once a minute (and at start),
/// from the counters the writer keeps: no record is counted and no closed environment is opened.
final class TelemetrySampler: Sendable {
    let store: ServerStore
    let telemetry: Telemetry
    private let loop = BackgroundWork("telemetry sampler")

    init(store: ServerStore, telemetry: Telemetry) {
        self.store = store
        self.telemetry = telemetry
    }

    func start() {
        let store = store, telemetry = telemetry
        loop.repeating(every: .seconds(60),
                       immediately: true) { _ = try? await BlockingWork.shared.run { Self.sample(store, telemetry) } }
    }

    func stop() async { await loop.stop() }

    static func sample(_ store: ServerStore, _ telemetry: Telemetry) {
        for env in store.openEnvironments() {
            guard let records = try? env.records.recordCount(), let usage = try? env.quota.storageUsage() else { continue }
            telemetry.sample(container: env.container.rawValue, environment: env.environment.rawValue,
                             records: Int64(records),
                             bytes: usage.recordBytes + usage.assetBytes)
        }
    }
}
