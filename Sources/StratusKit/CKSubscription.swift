import Foundation

/// Mirrors `CKSubscription`: what a database notifies its owner of. Use its subclasses, as with CloudKit.
open class CKSubscription: NSObject, NSSecureCoding, @unchecked Sendable {
    /// Mirrors `CKSubscription.ID`.
    public typealias ID = String

    /// Mirrors `CKSubscription.SubscriptionType`.
    public enum SubscriptionType: Int, Sendable {
        case query = 1, recordZone = 2, database = 3
    }

    /// Mirrors `CKSubscription.NotificationInfo`: what a notification shows, and which record fields it carries
    /// (`desiredKeys`, for query subscriptions).
    public final class NotificationInfo: NSObject, @unchecked Sendable {
        /// Mirrors `CKSubscription.NotificationInfo.alertBody`.
        public var alertBody: String?
        /// Mirrors `CKSubscription.NotificationInfo.alertLocalizationKey`.
        public var alertLocalizationKey: String?
        /// Mirrors `CKSubscription.NotificationInfo.alertLocalizationArgs`.
        public var alertLocalizationArgs: [CKRecord.FieldKey]?
        /// Mirrors `CKSubscription.NotificationInfo.alertActionLocalizationKey`.
        public var alertActionLocalizationKey: String?
        /// Mirrors `CKSubscription.NotificationInfo.alertLaunchImage`.
        public var alertLaunchImage: String?
        /// Mirrors `CKSubscription.NotificationInfo.title`.
        public var title: String?
        /// Mirrors `CKSubscription.NotificationInfo.titleLocalizationKey`.
        public var titleLocalizationKey: String?
        /// Mirrors `CKSubscription.NotificationInfo.titleLocalizationArgs`.
        public var titleLocalizationArgs: [CKRecord.FieldKey]?
        /// Mirrors `CKSubscription.NotificationInfo.subtitle`.
        public var subtitle: String?
        /// Mirrors `CKSubscription.NotificationInfo.subtitleLocalizationKey`.
        public var subtitleLocalizationKey: String?
        /// Mirrors `CKSubscription.NotificationInfo.subtitleLocalizationArgs`.
        public var subtitleLocalizationArgs: [CKRecord.FieldKey]?
        /// Mirrors `CKSubscription.NotificationInfo.soundName`.
        public var soundName: String?
        /// Mirrors `CKSubscription.NotificationInfo.shouldBadge`.
        public var shouldBadge = false
        /// Mirrors `CKSubscription.NotificationInfo.shouldSendContentAvailable`.
        public var shouldSendContentAvailable = false
        /// Mirrors `CKSubscription.NotificationInfo.shouldSendMutableContent`.
        public var shouldSendMutableContent = false
        /// Mirrors `CKSubscription.NotificationInfo.desiredKeys`.
        public var desiredKeys: [CKRecord.FieldKey]?
        /// Mirrors `CKSubscription.NotificationInfo.category`.
        public var category: String?
        /// Mirrors `CKSubscription.NotificationInfo.collapseIDKey`.
        public var collapseIDKey: String?

        /// Mirrors `CKSubscription.NotificationInfo()`.
        public override init() { super.init() }

        /// Mirrors `CKSubscription.NotificationInfo(alertBody:shouldSendContentAvailable:desiredKeys:)`.
        public convenience init(alertBody: String? = nil, shouldSendContentAvailable: Bool = false, desiredKeys: [CKRecord.FieldKey]? = nil) {
            self.init()
            self.alertBody = alertBody
            self.shouldSendContentAvailable = shouldSendContentAvailable
            self.desiredKeys = desiredKeys
        }

        var wire: [String: Any] {
            var o: [String: Any] = ["shouldBadge": shouldBadge, "shouldSendContentAvailable": shouldSendContentAvailable]
            if let v = alertBody { o["alertBody"] = v }
            if let v = alertLocalizationKey { o["alertLocalizationKey"] = v }
            if let v = alertLocalizationArgs { o["alertLocalizationArgs"] = v }
            if let v = alertActionLocalizationKey { o["alertActionLocalizationKey"] = v }
            if let v = alertLaunchImage { o["alertLaunchImage"] = v }
            if let v = soundName { o["soundName"] = v }
            if let v = desiredKeys { o["desiredKeys"] = v }
            if let v = title { o["title"] = v }
            if let v = titleLocalizationKey { o["titleLocalizationKey"] = v }
            if let v = titleLocalizationArgs { o["titleLocalizationArgs"] = v }
            if let v = subtitle { o["subtitle"] = v }
            if let v = subtitleLocalizationKey { o["subtitleLocalizationKey"] = v }
            if let v = subtitleLocalizationArgs { o["subtitleLocalizationArgs"] = v }
            if let v = category { o["category"] = v }
            if let v = collapseIDKey { o["collapseIDKey"] = v }
            if shouldSendMutableContent { o["shouldSendMutableContent"] = true }
            return o
        }

        init(wire o: [String: Any]) {
            alertBody = o["alertBody"] as? String
            alertLocalizationKey = o["alertLocalizationKey"] as? String
            alertLocalizationArgs = o["alertLocalizationArgs"] as? [String]
            alertActionLocalizationKey = o["alertActionLocalizationKey"] as? String
            alertLaunchImage = o["alertLaunchImage"] as? String
            soundName = o["soundName"] as? String
            shouldBadge = o["shouldBadge"] as? Bool ?? false
            shouldSendContentAvailable = o["shouldSendContentAvailable"] as? Bool ?? false
            desiredKeys = o["desiredKeys"] as? [String]
            title = o["title"] as? String
            titleLocalizationKey = o["titleLocalizationKey"] as? String
            titleLocalizationArgs = o["titleLocalizationArgs"] as? [String]
            subtitle = o["subtitle"] as? String
            subtitleLocalizationKey = o["subtitleLocalizationKey"] as? String
            subtitleLocalizationArgs = o["subtitleLocalizationArgs"] as? [String]
            category = o["category"] as? String
            collapseIDKey = o["collapseIDKey"] as? String
            shouldSendMutableContent = o["shouldSendMutableContent"] as? Bool ?? false
        }
    }

    /// Mirrors `CKSubscription.subscriptionID`.
    public let subscriptionID: ID
    /// Mirrors `CKSubscription.subscriptionType`.
    public let subscriptionType: SubscriptionType
    /// Mirrors `CKSubscription.notificationInfo`.
    public var notificationInfo: NotificationInfo?

    init(subscriptionID: ID, type: SubscriptionType) {
        self.subscriptionID = subscriptionID
        subscriptionType = type
    }

    // MARK: Coding

    /// Keyed archives of it are secure (NSSecureCoding), as CloudKit's.
    public class var supportsSecureCoding: Bool { true }

    /// Mirrors CloudKit's archiving of a subscription: its ID, kind and notification info; each kind adds its own.
    open func encode(with coder: NSCoder) {
        coder.encode(subscriptionID as NSString, forKey: "subscriptionID")
        coder.encode(subscriptionType.rawValue, forKey: "subscriptionType")
        if let info = notificationInfo, let data = try? JSONSerialization.data(withJSONObject: info.wire) {
            coder.encode(data as NSData, forKey: "notificationInfo")
        }
    }

    /// Reads what `encode(with:)` wrote; nil for a damaged archive.
    public required init?(coder: NSCoder) {
        guard let id = coder.optionalObject(of: NSString.self, forKey: "subscriptionID") as String?,
              let type = SubscriptionType(rawValue: coder.decodeInteger(forKey: "subscriptionType")) else { return nil }
        subscriptionID = id
        subscriptionType = type
        if let data = coder.optionalObject(of: NSData.self, forKey: "notificationInfo") as Data?,
           let o = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] {
            notificationInfo = NotificationInfo(wire: o)
        }
        super.init()
    }

    /// The subscription dictionary of `subscriptions/modify`.
    func wire() throws -> [String: Any] {
        var o: [String: Any] = ["subscriptionID": subscriptionID]
        if let n = notificationInfo { o["notificationInfo"] = n.wire }
        return o
    }

    /// A subscription read from the server.
    static func from(wire o: [String: Any], scope: CKDatabase.Scope) -> CKSubscription? {
        guard let id = o["subscriptionID"] as? String else { return nil }
        let s: CKSubscription
        switch o["subscriptionType"] as? String {
        case "query":
            let q = o["query"] as? [String: Any] ?? [:]
            let fires = o["firesOn"] as? [String] ?? []
            var options: CKQuerySubscription.Options = []
            if fires.contains("create") { options.insert(.firesOnRecordCreation) }
            if fires.contains("update") { options.insert(.firesOnRecordUpdate) }
            if fires.contains("delete") { options.insert(.firesOnRecordDeletion) }
            if o["firesOnce"] as? Bool == true { options.insert(.firesOnce) }
            let sub = CKQuerySubscription(recordType: q["recordType"] as? String ?? "", filters: q["filterBy"] as? [[String: Any]] ?? [],
                                          subscriptionID: id, options: options)
            if o["zoneWide"] as? Bool == false, o["zoneID"] != nil { sub.zoneID = RecordCoder.zoneID(o["zoneID"], scope: scope) }
            s = sub
        case "zone":
            s = CKRecordZoneSubscription(zoneID: RecordCoder.zoneID(o["zoneID"], scope: scope), subscriptionID: id)
        case "database":
            s = CKDatabaseSubscription(subscriptionID: id)
        default:
            return nil
        }
        s.notificationInfo = (o["notificationInfo"] as? [String: Any]).map(NotificationInfo.init(wire:))
        return s
    }
}
