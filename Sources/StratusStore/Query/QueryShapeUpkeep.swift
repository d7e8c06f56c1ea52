import StratusModel
import Synchronization

/// What an environment keeps in memory about its queries and automatic indexes between the query-shape keeper's
/// visits (`QueryShapeKeeper.visit`): the shapes run, the indexes used, the build under way and the
/// builds that failed. A query only adds to it; the keeper's visit writes it out.
final class QueryShapeUpkeep: Sendable {
    /// When Stratus builds indexes for query shapes (`ServerConfig.autoIndexes`).
    let policy: AutoIndexPolicy
    /// Query shapes run since the last visit.
    let shapes = ShapeLog()
    /// Automatic indexes queries used since the last visit (their `last_used_at` moves then).
    let used = Mutex<Set<String>>([])
    /// Whether an index is being built (one build at a time per environment).
    let building = Mutex<Bool>(false)
    /// Shapes whose index build failed, and when (tried again after `retryFailedAfter`).
    let failures = Mutex<[String: Int64]>([:])

    init(policy: AutoIndexPolicy) { self.policy = policy }
}
