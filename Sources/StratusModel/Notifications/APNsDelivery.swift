/// One push of one notification to one device, as the console's Notifications page lists it.
public struct APNsDelivery: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        /// APNs accepted it (200).
        case sent
        /// APNs asked to wait (429) or failed (5xx, no answer); it is tried again.
        case retrying
        /// Given up: APNs refused it for good, or every retry failed.
        case failed
        /// APNs said the token is no longer valid (410, BadDeviceToken): the device was removed.
        case unregistered
    }

    public var id: Int64
    public var token, userRecordName, notificationID: String
    public var state: State
    /// APNs' HTTP status, 0 when no answer came.
    public var status: Int
    /// APNs' `reason`, or why no answer came.
    public var reason, apnsID: String?
    public var attempts: Int
    public var at: Int64

    public init(id: Int64, token: String, userRecordName: String, notificationID: String, state: State, status: Int,
                reason: String?,
                apnsID: String?, attempts: Int, at: Int64) {
        self.id = id
        self.token = token
        self.userRecordName = userRecordName
        self.notificationID = notificationID
        self.state = state
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.attempts = attempts
        self.at = at
    }

    public var shortToken: String { APNsDevice.shortened(token) }
}
