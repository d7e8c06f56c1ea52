import StratusHTTP
import StratusModel
import StratusStore

/// The query-shape and automatic-index service: once a minute it writes what each open environment's shape log
/// gathered and decides what the indexes need — which shapes are worth one (frequent and, on SQLite, costly), the
/// build to start or to finish after a restart, the unused ones to drop. The store's `QueryShapeStore` holds the SQL
/// for each of those steps and decides nothing; no read path writes or starts a thread. Owned by the server, like the
/// webhook deliverer and the telemetry sampler; an environment being closed records its last minute itself.
public final class QueryShapeKeeper: Sendable {
    let store: ServerStore
    let interval: Duration
    private let loop = BackgroundWork("query-shape keeper")

    init(store: ServerStore, interval: Duration = .seconds(60)) {
        self.store = store
        self.interval = interval
    }

    func start() {
        let store = store
        loop.repeating(every: interval) { _ = try? await BlockingWork.shared.run { for env in store.openEnvironments() { Self.visit(env) } } }
    }

    func stop() async { await loop.stop() }

    /// One visit to an environment: its shapes written, its indexes' use recorded and the unused ones dropped, and
    /// on a thread of its own (one build at a time per environment) a build a restart cut short finished, or the
    /// index of the best candidate shape that has none built (skipping shapes whose build failed within
    /// `retryFailedAfter`). Public so that a benchmark or a test visits at once instead of waiting a minute.
    public static func visit(_ env: EnvironmentStore) {
        let shapes = env.queryShapes
        let policy = shapes.autoIndexPolicy
        let candidates = candidates(shapes.recordQueryShapes(), policy)
        try? shapes.tendAutoIndexes(dropUnusedFor: policy.dropUnusedAfter)
        guard policy.enabled, let indexes = try? shapes.autoIndexes() else { return }
        let now = WallClock.nowMillis()
        let unfinished = indexes.first { !$0.isReady }
        let shape = candidates.first { c in
            !indexes.contains { $0.serves(c) } && (shapes.lastFailedBuild(of: c).map { now - $0 > policy.retryFailedAfter } ?? true)
        }
        guard unfinished != nil || shape != nil, shapes.claimBuild() else { return }
        BackgroundWork("automatic index build").once {
            defer { shapes.endBuild() }
            if let unfinished { _ = try? shapes.finishAutoIndex(unfinished.name) } else if let shape { _ = try? shapes.buildAutoIndex(for: shape) }
        }
    }

    /// The shapes worth an index, best first: called at least `minimumCalls` times, a composite index serves them, and
    /// on SQLite each row they return costs at least `minimumStepsPerRow` (PostgreSQL does not say: there a frequent
    /// shape is a candidate, and the caps bound how many are built). Ranked by calls times cost.
    static func candidates(_ totals: [QueryShapeTotals], _ policy: AutoIndexPolicy) -> [QueryShape] {
        totals.compactMap { t -> (QueryShape, Double)? in
            let perRow = t.stepsPerRow ?? policy.minimumStepsPerRow
            guard t.shape.wantsCompositeIndex, t.calls >= policy.minimumCalls, perRow >= policy.minimumStepsPerRow else { return nil }
            return (t.shape, Double(t.calls) * perRow)
        }
        .sorted { $0.1 > $1.1 }.map(\.0)
    }
}
