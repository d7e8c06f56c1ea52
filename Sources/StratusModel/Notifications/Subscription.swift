/// A saved subscription, as the store matches it against changes: CloudKit's three kinds. It belongs to the user
/// who saved it, in one database (public, or that user's private or shared one), and notifies only that user.
public struct Subscription: Hashable, Sendable, Codable {
    public enum Kind: Hashable, Sendable, Codable {
        /// Records of a type matching every filter; `zoneID` nil with `zoneWide` means every zone of the database.
        case query(recordType: String, filters: [QueryFilter], firesOn: Set<FiresOn>, firesOnce: Bool, zoneID: ZoneID?)
        /// Every change in one custom zone.
        case zone(ZoneID)
        /// Every change in the whole (private or shared) database.
        case database
    }

    public enum FiresOn: String, Hashable, Sendable, Codable, CaseIterable {
        case create, update, delete
    }

    public var subscriptionID: String
    public var kind: Kind
    public var notificationInfo: NotificationInfo

    public init(subscriptionID: String, kind: Kind, notificationInfo: NotificationInfo = NotificationInfo()) {
        self.subscriptionID = subscriptionID
        self.kind = kind
        self.notificationInfo = notificationInfo
    }

    public var recordType: String? { if case .query(let t, _, _, _, _) = kind { t } else { nil } }
}

/// What the notification shows or does on the device (`aps`), and which fields it carries (`desiredKeys`).
public struct NotificationInfo: Hashable, Sendable, Codable {
    public var alertBody, alertLocalizationKey: String?
    public var alertLocalizationArgs: [String]?
    public var alertActionLocalizationKey, alertLaunchImage, soundName: String?
    public var shouldBadge, shouldSendContentAvailable: Bool
    public var desiredKeys: [String]?
    /// The alert's title and subtitle, literal or localized (`title-loc-key`, `subtitle-loc-args`…), the
    /// notification category, `mutable-content`, and the field whose value collapses notifications: CloudKit's
    /// `CKSubscription.NotificationInfo` has them beyond the Web Services reference. Optional, so subscriptions
    /// stored before they existed decode unchanged.
    public var title, titleLocalizationKey: String?
    public var titleLocalizationArgs: [String]?
    public var subtitle, subtitleLocalizationKey: String?
    public var subtitleLocalizationArgs: [String]?
    public var category, collapseIDKey: String?
    public var shouldSendMutableContent: Bool?

    public init(alertBody: String? = nil, alertLocalizationKey: String? = nil, alertLocalizationArgs: [String]? = nil,
                alertActionLocalizationKey: String? = nil, alertLaunchImage: String? = nil, soundName: String? = nil,
                shouldBadge: Bool = false, shouldSendContentAvailable: Bool = false, desiredKeys: [String]? = nil) {
        self.alertBody = alertBody
        self.alertLocalizationKey = alertLocalizationKey
        self.alertLocalizationArgs = alertLocalizationArgs
        self.alertActionLocalizationKey = alertActionLocalizationKey
        self.alertLaunchImage = alertLaunchImage
        self.soundName = soundName
        self.shouldBadge = shouldBadge
        self.shouldSendContentAvailable = shouldSendContentAvailable
        self.desiredKeys = desiredKeys
    }
}
