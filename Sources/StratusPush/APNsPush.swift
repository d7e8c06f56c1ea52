import Foundation
import StratusModel

/// One notification for one device, as APNs takes it: `POST /3/device/{token}` with APNs' headers and the
/// remote-notification dictionary (`{"aps": …, "ck": …}`) as the body.
public struct APNsPush: Sendable {
    public enum PushType: String, Sendable {
        /// Shows something (an alert, a sound or a badge): priority 10.
        case alert
        /// Only wakes the app to fetch (`content-available`): priority 5, as APNs requires for it.
        case background
    }

    public var deviceToken, topic: String
    public var payload: Data
    public var pushType: PushType
    public var collapseID: String?
    /// Seconds since 1970 after which APNs stops trying; 0: deliver now or never.
    public var expiration: Int64?

    public init(deviceToken: String, topic: String, payload: Data, pushType: PushType, collapseID: String? = nil,
                expiration: Int64? = nil) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.payload = payload
        self.pushType = pushType
        self.collapseID = collapseID
        self.expiration = expiration
    }

    /// A CloudKit notification's push: an `aps` with an alert, a sound or a badge is an alert push, anything else
    /// (`content-available` only, CloudKit's silent push) a background one. The collapse ID (at most 64 bytes, as
    /// APNs allows) lets a newer notification of the same subscription replace an undelivered older one on the device.
    public init(cloudKitPayload payload: String, deviceToken: String, topic: String, collapseID: String? = nil,
                expiration: Int64? = nil) {
        let aps = (try? JSON.parse(Data(payload.utf8)))?["aps"]?.object ?? [:]
        let shows = aps["alert"] != nil || aps["sound"] != nil || aps["badge"] != nil
        var collapse = collapseID
        while let c = collapse, c.utf8.count > 64 { collapse = String(c.dropLast()) }
        self.init(deviceToken: deviceToken, topic: topic, payload: Data(payload.utf8),
                  pushType: shows ? .alert : .background,
                  collapseID: collapse, expiration: expiration)
    }

    public var priority: Int { pushType == .alert ? 10 : 5 }

    /// The request's header lines, the provider token's among them.
    func headerLines(providerToken: String) -> [String] {
        var lines = ["authorization: bearer \(providerToken)", "apns-topic: \(topic)",
                     "apns-push-type: \(pushType.rawValue)",
                     "apns-priority: \(priority)", "content-type: application/json"]
        if let collapseID { lines.append("apns-collapse-id: \(collapseID)") }
        if let expiration { lines.append("apns-expiration: \(expiration)") }
        return lines
    }
}
