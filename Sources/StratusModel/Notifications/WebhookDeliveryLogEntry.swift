/// One webhook delivery as the console's log shows it: where, about which record, and how it went.
public struct WebhookDeliveryLogEntry: Sendable {
    public var webhookID: Int64
    public var url, notificationID, recordType, recordName: String
    /// created, updated or deleted.
    public var reason: String
    /// pending, delivered or failed.
    public var state: String
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Int64

    public init(webhookID: Int64, url: String, notificationID: String, recordType: String, recordName: String,
                reason: String,
                state: String, attempts: Int, lastError: String?, createdAt: Int64) {
        self.webhookID = webhookID
        self.url = url
        self.notificationID = notificationID
        self.recordType = recordType
        self.recordName = recordName
        self.reason = reason
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
    }
}
