import Foundation

/// What APNs answered one push, and what the sender should do about it.
public struct APNsResult: Sendable, Hashable {
    /// HTTP status; 0 when no answer came (connection refused, TLS failure, timeout).
    public var status: Int
    /// APNs' `reason` (`BadDeviceToken`, `Unregistered`, `TooManyRequests`…), or why no answer came.
    public var reason, apnsID: String?
    /// Whether the answer came over HTTP/2 (APNs speaks nothing else).
    public var http2: Bool

    public init(status: Int, reason: String?, apnsID: String?, http2: Bool) {
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.http2 = http2
    }

    public enum Action: Sendable, Hashable {
        /// Delivered to APNs.
        case delivered
        /// The token will never work again (410 Unregistered, BadDeviceToken, DeviceTokenNotForTopic): forget the
        /// device.
        case dropDevice
        /// Try again later: APNs is busy (429), failing (5xx) or unreachable.
        case retry
        /// The provider token expired or was refused: make a new one and try again at once (once).
        case renewProviderToken
        /// Refused for good (a malformed push, a wrong topic or key): record it and go on.
        case giveUp
    }

    public var action: Action {
        switch status {
        case 200: return .delivered
        case 410: return .dropDevice
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic": return .dropDevice
        case 403 where reason == "ExpiredProviderToken" || reason == "InvalidProviderToken": return .renewProviderToken
        case 0, 429, 500...599: return .retry
        default: return .giveUp
        }
    }
}
