import StratusHTTP
import StratusStore

/// Writes what each open environment's query-shape log gathered once a minute, and with it looks after automatic
/// indexes (builds the one a frequent, costly shape needs, drops unused ones): the work that used to ride on the
/// first query after a minute, so that no read path writes or starts a thread. Owned by the server, like the
/// webhook deliverer and the telemetry sampler; an environment being closed records its last minute itself.
final class QueryShapeKeeper: Sendable {
    let store: ServerStore
    let interval: Duration
    private let loop = BackgroundWork("query-shape keeper")

    init(store: ServerStore, interval: Duration = .seconds(60)) {
        self.store = store
        self.interval = interval
    }

    func start() {
        let store = store
        loop.repeating(every: interval) { _ = try? await BlockingWork.shared.run { Self.record(store) } }
    }

    func stop() async { await loop.stop() }

    static func record(_ store: ServerStore) {
        for env in store.openEnvironments() { env.queryShapes.recordQueryShapes() }
    }
}
