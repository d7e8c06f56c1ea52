import StratusKit

/// `CKSubscription` and its kinds, `CKSubscription.NotificationInfo`, and `CKNotification` and its kinds.
func ckSubscriptionConformance() {
    typealias W<Root, Value> = ReferenceWritableKeyPath<Root, Value>
    let _: KeyPath<CKSubscription, CKSubscription.ID> = \CKSubscription.subscriptionID
    let _: KeyPath<CKSubscription, CKSubscription.SubscriptionType> = \CKSubscription.subscriptionType
    let _: W<CKSubscription, CKSubscription.NotificationInfo?> = \CKSubscription.notificationInfo
    let _: (NSCoder) -> CKSubscription? = CKSubscription.init(coder:)
    let _: [CKSubscription.SubscriptionType] = [.query, .recordZone, .database]

    let _: (CKRecord.RecordType, NSPredicate, CKSubscription.ID, CKQuerySubscription.Options) -> CKQuerySubscription
        = CKQuerySubscription.init(recordType:predicate:subscriptionID:options:)
    let _: KeyPath<CKQuerySubscription, CKRecord.RecordType?> = \CKQuerySubscription.recordType
    let _: KeyPath<CKQuerySubscription, NSPredicate> = \CKQuerySubscription.predicate
    let _: W<CKQuerySubscription, CKRecordZone.ID?> = \CKQuerySubscription.zoneID
    let _: KeyPath<CKQuerySubscription, CKQuerySubscription.Options> = \CKQuerySubscription.querySubscriptionOptions
    let _: CKQuerySubscription.Options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion, .firesOnce]

    let _: (CKRecordZone.ID, CKSubscription.ID) -> CKRecordZoneSubscription = CKRecordZoneSubscription.init(zoneID:subscriptionID:)
    let _: KeyPath<CKRecordZoneSubscription, CKRecordZone.ID> = \CKRecordZoneSubscription.zoneID
    let _: W<CKRecordZoneSubscription, CKRecord.RecordType?> = \CKRecordZoneSubscription.recordType

    let _: (CKSubscription.ID) -> CKDatabaseSubscription = CKDatabaseSubscription.init(subscriptionID:)
    let _: W<CKDatabaseSubscription, CKRecord.RecordType?> = \CKDatabaseSubscription.recordType

    typealias Info = CKSubscription.NotificationInfo
    let _: () -> Info = Info.init
    let _: W<Info, String?> = \Info.alertBody
    let _: W<Info, String?> = \Info.alertLocalizationKey
    let _: W<Info, [CKRecord.FieldKey]?> = \Info.alertLocalizationArgs
    let _: W<Info, String?> = \Info.title
    let _: W<Info, String?> = \Info.titleLocalizationKey
    let _: W<Info, [CKRecord.FieldKey]?> = \Info.titleLocalizationArgs
    let _: W<Info, String?> = \Info.subtitle
    let _: W<Info, String?> = \Info.subtitleLocalizationKey
    let _: W<Info, [CKRecord.FieldKey]?> = \Info.subtitleLocalizationArgs
    let _: W<Info, String?> = \Info.alertActionLocalizationKey
    let _: W<Info, String?> = \Info.alertLaunchImage
    let _: W<Info, String?> = \Info.soundName
    let _: W<Info, [CKRecord.FieldKey]?> = \Info.desiredKeys
    let _: W<Info, Bool> = \Info.shouldBadge
    let _: W<Info, Bool> = \Info.shouldSendContentAvailable
    let _: W<Info, Bool> = \Info.shouldSendMutableContent
    let _: W<Info, String?> = \Info.category
    let _: W<Info, String?> = \Info.collapseIDKey

    // Notifications.
    let _: ([AnyHashable: Any]) -> CKNotification? = CKNotification.init(fromRemoteNotificationDictionary:)
    let _: KeyPath<CKNotification, CKNotification.NotificationType> = \CKNotification.notificationType
    let _: KeyPath<CKNotification, CKNotification.ID?> = \CKNotification.notificationID
    let _: KeyPath<CKNotification, String?> = \CKNotification.containerIdentifier
    let _: KeyPath<CKNotification, CKRecord.ID?> = \CKNotification.subscriptionOwnerUserRecordID
    let _: KeyPath<CKNotification, Bool> = \CKNotification.isPruned
    let _: KeyPath<CKNotification, CKSubscription.ID?> = \CKNotification.subscriptionID
    let _: KeyPath<CKNotification, String?> = \CKNotification.alertBody
    let _: KeyPath<CKNotification, String?> = \CKNotification.title
    let _: KeyPath<CKNotification, String?> = \CKNotification.subtitle
    let _: KeyPath<CKNotification, String?> = \CKNotification.soundName
    let _: KeyPath<CKNotification, String?> = \CKNotification.category
    let _: [CKNotification.NotificationType] = [.query, .recordZone, .readNotification, .database]
    let _: KeyPath<CKQueryNotification, CKQueryNotification.Reason> = \CKQueryNotification.queryNotificationReason
    let _: KeyPath<CKQueryNotification, [String: Any]?> = \CKQueryNotification.recordFields
    let _: KeyPath<CKQueryNotification, CKRecord.ID?> = \CKQueryNotification.recordID
    let _: KeyPath<CKQueryNotification, CKDatabase.Scope> = \CKQueryNotification.databaseScope
    let _: [CKQueryNotification.Reason] = [.recordCreated, .recordUpdated, .recordDeleted]
    let _: KeyPath<CKRecordZoneNotification, CKRecordZone.ID?> = \CKRecordZoneNotification.recordZoneID
    let _: KeyPath<CKRecordZoneNotification, CKDatabase.Scope> = \CKRecordZoneNotification.databaseScope
    let _: KeyPath<CKDatabaseNotification, CKDatabase.Scope> = \CKDatabaseNotification.databaseScope
}
