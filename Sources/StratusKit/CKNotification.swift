import Foundation

/// Mirrors `CKNotification`: a notification from a subscription, read from the remote-notification dictionary
/// (`{"aps": …, "ck": …}`) that APNs, the web courier and Stratus's notification stream carry.
open class CKNotification: NSObject, @unchecked Sendable {
    /// Mirrors `CKNotification.NotificationType`.
    public enum NotificationType: Int, Sendable {
        case query = 1, recordZone = 2, readNotification = 3, database = 4
    }

    /// Mirrors `CKNotification.ID`.
    public typealias ID = String

    /// Mirrors `CKNotification.notificationType`.
    public let notificationType: NotificationType
    /// Mirrors `CKNotification.notificationID`.
    public let notificationID: ID?
    /// Mirrors `CKNotification.containerIdentifier`.
    public let containerIdentifier: String?
    /// Mirrors `CKNotification.subscriptionID`.
    public let subscriptionID: CKSubscription.ID?
    /// Mirrors `isPruned`: some of the notification's data was left out to keep it small.
    public let isPruned: Bool
    /// Mirrors `CKNotification.alertBody`.
    public let alertBody: String?
    /// Mirrors `CKNotification.alertLocalizationKey`.
    public let alertLocalizationKey: String?
    /// Mirrors `CKNotification.alertLocalizationArgs`.
    public let alertLocalizationArgs: [String]?
    /// Mirrors `CKNotification.alertActionLocalizationKey`.
    public let alertActionLocalizationKey: String?
    /// Mirrors `CKNotification.alertLaunchImage`.
    public let alertLaunchImage: String?
    /// Mirrors `CKNotification.title`.
    public let title: String?
    /// Mirrors `CKNotification.titleLocalizationKey`.
    public let titleLocalizationKey: String?
    /// Mirrors `CKNotification.titleLocalizationArgs`.
    public let titleLocalizationArgs: [String]?
    /// Mirrors `CKNotification.subtitle`.
    public let subtitle: String?
    /// Mirrors `CKNotification.subtitleLocalizationKey`.
    public let subtitleLocalizationKey: String?
    /// Mirrors `CKNotification.subtitleLocalizationArgs`.
    public let subtitleLocalizationArgs: [String]?
    /// Mirrors `CKNotification.category`.
    public let category: String?
    /// Mirrors `CKNotification.subscriptionOwnerUserRecordID`: the user whose subscription fired.
    public let subscriptionOwnerUserRecordID: CKRecord.ID?
    /// Mirrors `CKNotification.soundName`.
    public let soundName: String?
    /// Mirrors `CKNotification.badge`.
    public let badge: NSNumber?

    init(type: NotificationType, _ d: [String: Any], ck: [String: Any], subscriptionID: String?) {
        notificationType = type
        notificationID = ck["nid"] as? String
        containerIdentifier = ck["cid"] as? String
        self.subscriptionID = subscriptionID
        isPruned = (ck["prn"] as? NSNumber)?.boolValue ?? false
        let aps = d["aps"] as? [String: Any] ?? [:]
        let alert = aps["alert"]
        alertBody = (alert as? String) ?? (alert as? [String: Any])?["body"] as? String
        alertLocalizationKey = (alert as? [String: Any])?["loc-key"] as? String
        alertLocalizationArgs = (alert as? [String: Any])?["loc-args"] as? [String]
        let fields = alert as? [String: Any] ?? [:]
        alertActionLocalizationKey = fields["action-loc-key"] as? String
        alertLaunchImage = fields["launch-image"] as? String
        title = fields["title"] as? String
        titleLocalizationKey = fields["title-loc-key"] as? String
        titleLocalizationArgs = fields["title-loc-args"] as? [String]
        subtitle = fields["subtitle"] as? String
        subtitleLocalizationKey = fields["subtitle-loc-key"] as? String
        subtitleLocalizationArgs = fields["subtitle-loc-args"] as? [String]
        category = aps["category"] as? String
        subscriptionOwnerUserRecordID = (ck["ckuserid"] as? String).map { CKRecord.ID(recordName: $0) }
        soundName = aps["sound"] as? String
        badge = aps["badge"] as? NSNumber
    }

    /// Mirrors `CKNotification(fromRemoteNotificationDictionary:)`: the matching subclass, or nil when the
    /// dictionary is not a CloudKit notification.
    public static func make(fromRemoteNotificationDictionary d: [AnyHashable: Any]) -> CKNotification? {
        var strings: [String: Any] = [:]
        for (k, v) in d { if let k = k as? String { strings[k] = v } }
        guard let ck = strings["ck"] as? [String: Any] else { return nil }
        if let q = ck["qry"] as? [String: Any] { return CKQueryNotification(strings, ck: ck, qry: q) }
        if let z = ck["fet"] as? [String: Any] { return CKRecordZoneNotification(strings, ck: ck, fet: z) }
        if let m = ck["met"] as? [String: Any] { return CKDatabaseNotification(strings, ck: ck, met: m) }
        return nil
    }

    static func scope(_ v: Any?) -> CKDatabase.Scope {
        CKDatabase.Scope(rawValue: (v as? NSNumber)?.intValue ?? 2) ?? .private
    }

    static func zone(_ o: [String: Any]) -> CKRecordZone.ID? {
        guard let name = o["zid"] as? String else { return nil }
        let scope = scope(o["dbs"])
        return CKRecordZone.ID(zoneName: name, ownerName: scope == .shared ? (o["zoid"] as? String ?? CKCurrentUserDefaultName) : CKCurrentUserDefaultName)
    }
}

/// Lets `CKNotification(fromRemoteNotificationDictionary:)` hand back the matching subclass, as CloudKit's
/// Objective-C initialiser does: a protocol extension's initialiser may assign `self` an instance of a subclass.
public protocol CKNotificationFromDictionary {}
extension CKNotification: CKNotificationFromDictionary {}

extension CKNotificationFromDictionary where Self: CKNotification {
    /// Mirrors `CKNotification(fromRemoteNotificationDictionary:)`: a `CKQueryNotification`,
    /// `CKRecordZoneNotification` or `CKDatabaseNotification`, or nil for a dictionary that is not CloudKit's.
    public init?(fromRemoteNotificationDictionary d: [AnyHashable: Any]) {
        guard let made = CKNotification.make(fromRemoteNotificationDictionary: d) as? Self else { return nil }
        self = made
    }
}
