import Synchronization

/// How many notifications and webhook deliveries an environment has created since the process started, and how
/// many notifications the log's budgets dropped before they were read (the server's `/-/metrics`); counted when
/// their transaction commits, never for one that rolls back.
public final class NotificationCounter: Sendable {
    private let counts = Mutex<(notifications: Int, webhooks: Int, evicted: Int)>((0, 0, 0))

    public init() {}

    func add(notifications: Int, webhooks: Int, evicted: Int = 0) {
        counts.withLock { $0.notifications += notifications; $0.webhooks += webhooks; $0.evicted += evicted }
    }

    public var notifications: Int { counts.withLock { $0.notifications } }
    /// Webhook deliveries queued.
    public var webhooks: Int { counts.withLock { $0.webhooks } }
    /// Notifications dropped by the log's budgets (a recipient's, or the whole log's), not by the retention.
    public var evicted: Int { counts.withLock { $0.evicted } }
}
