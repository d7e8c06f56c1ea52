/// How much notification state one container environment may hold, so that no user can fill the server through
/// subscriptions (`serve --max-subscriptions-per-user`, `--max-subscriptions`, `--notification-log-mb`,
/// `--notification-retention-days`). Every default is here, and none is one a CloudKit app meets: apps keep a
/// handful of subscriptions per user, and alert texts are a line.
public struct NotificationPolicy: Sendable, Hashable {
    /// How long the log keeps a notification, in milliseconds.
    public var retention: Int64
    /// Subscriptions one user may hold in one environment, across its databases.
    public var subscriptionsPerUser: Int
    /// Subscriptions of all users together in one environment.
    public var subscriptionsPerEnvironment: Int
    /// The notification log's own budget in bytes: past it, the oldest notifications are dropped first (their
    /// listeners, if any are that far behind, get CHANGE_TOKEN_EXPIRED as after the retention). The log is charged
    /// to this budget and to no one's storage quota.
    public var logBudgetBytes: Int64
    /// How long a sync token stays good after it was handed out, in milliseconds (0: no limit). An older one is
    /// CHANGE_TOKEN_EXPIRED, as CloudKit expires tokens it no longer keeps changes for (`serve
    /// --change-token-retention-days`). Kept beside the notification log's retention: the environment's retention.
    public var changeTokenRetention: Int64 = 0

    /// What one recipient's notifications may take of the log: an eighth of its budget. Past it, that recipient's
    /// oldest notifications go, whoever else the log holds; one user's flood drops their own backlog only.
    public var recipientBudgetBytes: Int64 { max(logBudgetBytes / 8, min(logBudgetBytes, 64 << 10)) }

    /// The largest `aps` a subscription's `notificationInfo` may make (CloudKit's alert strings are short; APNs
    /// carries 4 KB in all).
    public static let maximumAPSBytes = 1024
    /// The most bytes of `desiredKeys` fields (`af`) one notification carries; past it fields are left out and the
    /// notification is marked pruned (`ck.prn`), as CloudKit prunes payloads that do not fit APNs.
    public static let maximumFieldBytes = 2048

    public static let defaultRetention: Int64 = 7 * 24 * 3600 * 1000

    public init(retention: Int64 = NotificationPolicy.defaultRetention, subscriptionsPerUser: Int = 1_000,
                subscriptionsPerEnvironment: Int = 1_000_000, logBudgetBytes: Int64 = 256 << 20) {
        self.retention = retention
        self.subscriptionsPerUser = subscriptionsPerUser
        self.subscriptionsPerEnvironment = subscriptionsPerEnvironment
        self.logBudgetBytes = logBudgetBytes
    }
}
