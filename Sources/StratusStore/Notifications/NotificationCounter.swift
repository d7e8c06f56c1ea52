import Synchronization

/// How many notifications and webhook deliveries an environment has created since the process started (the
/// server's `/-/metrics`); counted when their transaction commits, never for one that rolls back.
public final class NotificationCounter: Sendable {
    private let counts = Mutex<(notifications: Int, webhooks: Int)>((0, 0))

    public init() {}

    func add(notifications: Int, webhooks: Int) { counts.withLock { $0.notifications += notifications; $0.webhooks += webhooks } }

    public var notifications: Int { counts.withLock { $0.notifications } }
    /// Webhook deliveries queued.
    public var webhooks: Int { counts.withLock { $0.webhooks } }
}
