import Foundation
import StratusJSON

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

    init(type: NotificationType, _ d: WireObject, ck: WireObject, subscriptionID: String?) {
        notificationType = type
        notificationID = ck["nid"]?.string
        containerIdentifier = ck["cid"]?.string
        self.subscriptionID = subscriptionID
        isPruned = ck["prn"]?.bool ?? (ck["prn"]?.int64).map { $0 != 0 } ?? false
        let aps = d["aps"]?.object ?? [:]
        let alert = aps["alert"]
        alertBody = (alert?.string) ?? (alert?.object)?["body"]?.string
        alertLocalizationKey = (alert?.object)?["loc-key"]?.string
        alertLocalizationArgs = (alert?.object)?["loc-args"]?.strings
        let fields = alert?.object ?? [:]
        alertActionLocalizationKey = fields["action-loc-key"]?.string
        alertLaunchImage = fields["launch-image"]?.string
        title = fields["title"]?.string
        titleLocalizationKey = fields["title-loc-key"]?.string
        titleLocalizationArgs = fields["title-loc-args"]?.strings
        subtitle = fields["subtitle"]?.string
        subtitleLocalizationKey = fields["subtitle-loc-key"]?.string
        subtitleLocalizationArgs = fields["subtitle-loc-args"]?.strings
        category = aps["category"]?.string
        subscriptionOwnerUserRecordID = (ck["ckuserid"]?.string).map { CKRecord.ID(recordName: $0) }
        soundName = aps["sound"]?.string
        badge = aps["badge"]?.int64.map { NSNumber(value: $0) }
    }

    /// Mirrors `CKNotification(fromRemoteNotificationDictionary:)`: the matching subclass, or nil when the
    /// dictionary is not a CloudKit notification.
    public static func make(fromRemoteNotificationDictionary d: [AnyHashable: Any]) -> CKNotification? {
        guard case .object(let payload)? = JSON(foundation: d) else { return nil }
        return make(payload: payload)
    }

    /// A notification from its payload as the server sends it (push, webhook, or the event stream).
    static func make(payload strings: WireObject) -> CKNotification? {
        guard let ck = strings["ck"]?.object else { return nil }
        if let q = ck["qry"]?.object { return CKQueryNotification(strings, ck: ck, qry: q) }
        if let z = ck["fet"]?.object { return CKRecordZoneNotification(strings, ck: ck, fet: z) }
        if let m = ck["met"]?.object { return CKDatabaseNotification(strings, ck: ck, met: m) }
        return nil
    }

    static func scope(_ v: JSON?) -> CKDatabase.Scope {
        CKDatabase.Scope(rawValue: v?.int ?? 2) ?? .private
    }

    static func zone(_ o: WireObject) -> CKRecordZone.ID? {
        guard let name = o["zid"]?.string else { return nil }
        let scope = scope(o["dbs"])
        return CKRecordZone.ID(zoneName: name,
                               ownerName: scope == .shared ? (o["zoid"]?.string ?? CKCurrentUserDefaultName) : CKCurrentUserDefaultName)
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
