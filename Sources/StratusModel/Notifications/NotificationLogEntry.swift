/// One notification as the console's log shows it: whose, from which subscription, about what, and how far its
/// user's web courier tokens have taken it (SSE streams keep no position: they replay from the log on reconnect).
public struct NotificationLogEntry: Sendable {
    public var id: Int64
    public var notificationID, user, subscriptionID: String
    public var scope: DatabaseScope
    public var recordName: String?
    /// 1 created, 2 updated, 3 deleted (CloudKit's `fo`); nil for a test notification.
    public var reason: Int?
    public var createdAt: Int64
    /// The user's courier tokens, and how many of them have answered this notification.
    public var courierTokens, courierDelivered: Int

    public init(id: Int64, notificationID: String, user: String, subscriptionID: String, scope: DatabaseScope,
                recordName: String?,
                reason: Int?, createdAt: Int64, courierTokens: Int, courierDelivered: Int) {
        self.id = id
        self.notificationID = notificationID
        self.user = user
        self.subscriptionID = subscriptionID
        self.scope = scope
        self.recordName = recordName
        self.reason = reason
        self.createdAt = createdAt
        self.courierTokens = courierTokens
        self.courierDelivered = courierDelivered
    }
}
