import StratusKit

/// Calls written as apps write them, built with warnings as errors: what typed references cannot see (default
/// arguments, `@discardableResult`, subscripts, literals as record values, the Foundation that `import CloudKit`
/// brings) is checked here. Never run; it only has to compile without a warning.
func appCallSites(container: CKContainer) async throws {
    let database = container.privateCloudDatabase
    let zone = CKRecordZone(zoneName: "Notes")
    _ = try await database.save(zone)
    let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: UUID().uuidString, zoneID: zone.zoneID))
    record["title"] = "Groceries"
    record["count"] = 3
    record["price"] = 2.5
    record["done"] = false
    record["due"] = Date()
    record["tags"] = ["milk", "eggs"]
    record["blob"] = Data([1, 2, 3])
    record["owner"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "owner"), action: .none)
    record.encryptedValues["secret"] = "only mine"
    let _: String? = record.encryptedValues["secret"] as? String
    let _: String? = record["title"] as? String
    record.setValue("via KVC", forKey: "subtitle")
    let saved = try await database.save(record)
    _ = saved.recordChangeTag

    // `deleteRecord(withID:)`, `deleteRecordZone(withID:)` and `deleteSubscription(withID:)` discard their results.
    try await database.deleteRecord(withID: record.recordID)
    try await database.deleteRecordZone(withID: zone.zoneID)
    try await database.deleteSubscription(withID: "gone")

    // Defaults: desiredKeys, resultsLimit, zone, save policy, atomicity.
    _ = try await database.records(for: [record.recordID])
    _ = try await database.modifyRecords(saving: [record], deleting: [])
    _ = try await database.modifyRecords(saving: [record], deleting: [], savePolicy: .allKeys)
    let query = CKQuery(recordType: "Note", predicate: NSPredicate(format: "count > %d AND title BEGINSWITH %@", 2, "G"))
    query.sortDescriptors = [NSSortDescriptor(key: "due", ascending: false)]
    let (matches, cursor) = try await database.records(matching: query)
    _ = try await database.records(matching: query, inZoneWith: zone.zoneID, desiredKeys: ["title"], resultsLimit: 10)
    if let cursor { _ = try await database.records(continuingMatchFrom: cursor) }
    for (_, result) in matches { _ = try result.get() }
    _ = try await database.databaseChanges(since: nil)
    _ = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: nil)
    _ = try await database.allRecordZones()
    _ = NSPredicate(value: true)
    _ = NSPredicate(format: "title == %@", argumentArray: ["x"])

    // Subscriptions: options has a default.
    let subscription = CKQuerySubscription(recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "notes")
    let info = CKSubscription.NotificationInfo()
    info.shouldSendContentAvailable = true
    subscription.notificationInfo = info
    _ = try await database.save(subscription)
    _ = try await database.save(CKDatabaseSubscription(subscriptionID: "db"))
    _ = try await database.save(CKRecordZoneSubscription(zoneID: zone.zoneID, subscriptionID: "zone"))

    // Operations, with a group and a configuration.
    let operation = CKModifyRecordsOperation(recordsToSave: [record], recordIDsToDelete: nil)
    operation.savePolicy = .changedKeys
    operation.qualityOfService = .userInitiated
    operation.configuration.timeoutIntervalForRequest = 30
    operation.group = CKOperationGroup()
    operation.perRecordSaveBlock = { id, result in _ = (id, result) }
    operation.modifyRecordsResultBlock = { result in
        if case .failure(let error) = result, let ck = error as? CKError, ck.code == .partialFailure {
            _ = ck.partialErrorsByItemID
        }
    }
    database.add(operation)
    let fetch = CKFetchRecordsOperation.fetchCurrentUserRecordOperation()
    fetch.perRecordResultBlock = { _, _ in }
    database.add(fetch)

    // The account, the user record and sharing.
    _ = try await container.accountStatus()
    let me = try await container.userRecordID()
    let userRecord = try await container.publicCloudDatabase.record(for: me)
    _ = userRecord.recordType == CKRecord.SystemType.userRecord
    let share = CKShare(recordZoneID: zone.zoneID)
    share[CKShare.SystemFieldKey.title] = "Family list"
    share.publicPermission = .none
    _ = try await database.modifyRecords(saving: [share], deleting: [])
    if let url = share.url {
        let metadata = try await container.shareMetadata(for: url)
        _ = try await container.accept(metadata)
        _ = try await container.accept([metadata])
    }
    _ = try await container.shareParticipant(forEmailAddress: "friend@example.com")

    // Errors as apps read them.
    do {
        _ = try await database.record(for: record.recordID)
    } catch let error as CKError where error.code == .unknownItem {
        _ = error.retryAfterSeconds
    } catch CKError.serverRecordChanged {
    }

    // Notifications.
    _ = NotificationCenter.default.addObserver(forName: .CKAccountChanged, object: nil, queue: nil) { _ in }
    if let note = CKNotification(fromRemoteNotificationDictionary: ["ck": ["cid": "iCloud.x"]]) as? CKQueryNotification {
        _ = note.recordID
    }

    // The sync engine.
    let delegate = MinimalSyncDelegate()
    var configuration = CKSyncEngine.Configuration(database: database, stateSerialization: nil, delegate: delegate)
    configuration.automaticallySync = false
    let engine = CKSyncEngine(configuration)
    engine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
    engine.state.add(pendingRecordZoneChanges: [.saveRecord(record.recordID)])
    try await engine.sendChanges()
    try await engine.fetchChanges()
    try await engine.sendChanges(CKSyncEngine.SendChangesOptions(scope: .zoneIDs([zone.zoneID])))
    try await engine.fetchChanges(CKSyncEngine.FetchChangesOptions(scope: .all, operationGroup: CKOperationGroup()))
    _ = CKSyncEngine.SendChangesOptions.Scope.all.contains(CKSyncEngine.PendingRecordZoneChange.saveRecord(record.recordID))
    let batch = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: engine.state.pendingRecordZoneChanges) { _ in nil }
    _ = batch
}
