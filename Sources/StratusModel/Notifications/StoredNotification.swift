/// One entry of a user's notification log: CloudKit's remote-notification dictionary and where it came from.
public struct StoredNotification: Hashable, Sendable {
    /// Position in the environment's log (increasing): what SSE's `Last-Event-ID` and courier tokens remember.
    public var id: Int64
    /// CloudKit's `ck.nid`: stable across deliveries, so clients can deduplicate.
    public var notificationID, subscriptionID: String
    public var scope: DatabaseScope
    public var recordName: String?
    /// 1 created, 2 updated, 3 deleted.
    public var reason: Int?
    public var createdAt: Int64
    /// The `{"aps": …, "ck": …}` JSON.
    public var payload: String

    public init(id: Int64, notificationID: String, subscriptionID: String, scope: DatabaseScope, recordName: String?, reason: Int?,
                createdAt: Int64, payload: String) {
        self.id = id
        self.notificationID = notificationID
        self.subscriptionID = subscriptionID
        self.scope = scope
        self.recordName = recordName
        self.reason = reason
        self.createdAt = createdAt
        self.payload = payload
    }
}
