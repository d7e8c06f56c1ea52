import Foundation
import StratusJSON

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
        public convenience init(alertBody: String? = nil, shouldSendContentAvailable: Bool = false,
                                desiredKeys: [CKRecord.FieldKey]? = nil) {
            self.init()
            self.alertBody = alertBody
            self.shouldSendContentAvailable = shouldSendContentAvailable
            self.desiredKeys = desiredKeys
        }

        /// Each member of the wire's `notificationInfo` and the property it is, by kind: one list for both ways.
        private static let texts: [(String, any ReferenceWritableKeyPath<NotificationInfo, String?> & Sendable)] = [
            ("alertBody", \.alertBody), ("alertLocalizationKey", \.alertLocalizationKey), ("alertActionLocalizationKey",
                    \.alertActionLocalizationKey),
            ("alertLaunchImage", \.alertLaunchImage), ("soundName", \.soundName), ("title",
                    \.title), ("titleLocalizationKey", \.titleLocalizationKey),
            ("subtitle", \.subtitle), ("subtitleLocalizationKey", \.subtitleLocalizationKey), ("category",
                    \.category), ("collapseIDKey", \.collapseIDKey),
        ]
        private static let lists: [(String, any ReferenceWritableKeyPath<NotificationInfo, [String]?> & Sendable)] = [
            ("alertLocalizationArgs", \.alertLocalizationArgs), ("desiredKeys",
                                                                 \.desiredKeys), ("titleLocalizationArgs",
                    \.titleLocalizationArgs),
            ("subtitleLocalizationArgs", \.subtitleLocalizationArgs),
        ]
        private static let flags: [(String, any ReferenceWritableKeyPath<NotificationInfo, Bool> & Sendable)] = [
            ("shouldBadge", \.shouldBadge), ("shouldSendContentAvailable",
                                             \.shouldSendContentAvailable), ("shouldSendMutableContent",
                    \.shouldSendMutableContent),
        ]

        var wire: WireObject {
            var o: WireObject = ["shouldBadge": JSON(shouldBadge),
                                 "shouldSendContentAvailable": JSON(shouldSendContentAvailable)]
            for (key, path) in Self.texts { if let v = self[keyPath: path] { o[key] = JSON(v) } }
            for (key, path) in Self.lists { if let v = self[keyPath: path] { o[key] = JSON(v) } }
            if shouldSendMutableContent { o["shouldSendMutableContent"] = true }
            return o
        }

        init(wire o: WireObject) {
            super.init()
            for (key, path) in Self.texts { self[keyPath: path] = o[key]?.string }
            for (key, path) in Self.lists { self[keyPath: path] = o[key]?.strings }
            for (key, path) in Self.flags { self[keyPath: path] = o[key]?.bool ?? false }
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
        if let info = notificationInfo { coder.encode(JSON(info.wire).encoded as NSData, forKey: "notificationInfo") }
    }

    /// Reads what `encode(with:)` wrote; nil for a damaged archive.
    public required init?(coder: NSCoder) {
        guard let id = coder.optionalObject(of: NSString.self, forKey: "subscriptionID") as String?,
              let type = SubscriptionType(rawValue: coder.decodeInteger(forKey: "subscriptionType")) else { return nil }
        subscriptionID = id
        subscriptionType = type
        if let data = coder.optionalObject(of: NSData.self, forKey: "notificationInfo") as Data?,
           let o = JSON(parsing: data)?.object {
            notificationInfo = NotificationInfo(wire: o)
        }
        super.init()
    }

    /// The subscription dictionary of `subscriptions/modify`.
    func wire() throws -> WireObject {
        var o: WireObject = ["subscriptionID": JSON(subscriptionID)]
        if let n = notificationInfo { o["notificationInfo"] = JSON(n.wire) }
        return o
    }

    /// A subscription read from the server.
    static func from(wire o: WireObject, scope: CKDatabase.Scope) -> CKSubscription? {
        guard let id = o["subscriptionID"]?.string else { return nil }
        let s: CKSubscription
        switch o["subscriptionType"]?.string {
        case "query":
            let q = o["query"]?.object ?? [:]
            let fires = o["firesOn"]?.strings ?? []
            var options: CKQuerySubscription.Options = []
            if fires.contains("create") { options.insert(.firesOnRecordCreation) }
            if fires.contains("update") { options.insert(.firesOnRecordUpdate) }
            if fires.contains("delete") { options.insert(.firesOnRecordDeletion) }
            if o["firesOnce"]?.bool == true { options.insert(.firesOnce) }
            let sub = CKQuerySubscription(recordType: q["recordType"]?.string ?? "",
                                          filters: q["filterBy"]?.objects ?? [],
                                          subscriptionID: id, options: options)
            if o["zoneWide"]?.bool == false, o["zoneID"] != nil { sub.zoneID = RecordCoder.zoneID(o["zoneID"],
                    scope: scope) }
            s = sub
        case "zone":
            s = CKRecordZoneSubscription(zoneID: RecordCoder.zoneID(o["zoneID"], scope: scope), subscriptionID: id)
        case "database":
            s = CKDatabaseSubscription(subscriptionID: id)
        default:
            return nil
        }
        s.notificationInfo = (o["notificationInfo"]?.object).map(NotificationInfo.init(wire:))
        return s
    }
}
