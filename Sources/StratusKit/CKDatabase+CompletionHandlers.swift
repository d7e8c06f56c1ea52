import Foundation

/// CloudKit's completion-handler forms of `CKDatabase`'s calls, each running its async form in a task and
/// calling the handler once with its result.
extension CKDatabase {
    /// What a completion handler of a fetch of several items receives: each item's result, or the whole's error.
    public typealias FetchAnswer<ID: Hashable, Item> = Result<[ID: Result<Item, any Error>], any Error>
    /// What a completion handler of a modify receives: each save's and each delete's result, or the whole's error.
    public typealias ModifyAnswer<ID: Hashable, Item> = Result<(saveResults: [ID: Result<Item, any Error>],
                                                                deleteResults: [ID: Result<Void,
            any Error>]), any Error>

    private func deliver<T>(_ handler: @escaping @Sendable (Result<T, any Error>) -> Void,
                            _ work: @escaping @Sendable () async throws -> T) {
        Task { do { handler(.success(try await work())) } catch { handler(.failure(error)) } }
    }

    /// Mirrors `CKDatabase.fetch(withRecordID:completionHandler:)`.
    public func fetch(withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord?,
            (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.record(for: recordID) }
    }

    /// Mirrors `CKDatabase.fetch(withRecordIDs:desiredKeys:completionHandler:)`.
    public func fetch(withRecordIDs recordIDs: [CKRecord.ID], desiredKeys: [CKRecord.FieldKey]? = nil,
                      completionHandler: @escaping @Sendable (FetchAnswer<CKRecord.ID, CKRecord>) -> Void) {
        deliver(completionHandler) { try await self.records(for: recordIDs, desiredKeys: desiredKeys) }
    }

    /// Mirrors `CKDatabase.save(_:completionHandler:)` for a record.
    public func save(_ record: CKRecord, completionHandler: @escaping @Sendable (CKRecord?, (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.save(record) }
    }

    /// Mirrors `CKDatabase.delete(withRecordID:completionHandler:)`.
    public func delete(withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord.ID?,
            (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.deleteRecord(withID: recordID) }
    }

    /// Mirrors `CKDatabase.modifyRecords(saving:deleting:savePolicy:atomically:completionHandler:)`.
    public func modifyRecords(saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
                              savePolicy: RecordSavePolicy = .ifServerRecordUnchanged,
                              atomically: Bool = true, completionHandler: @escaping @Sendable (ModifyAnswer<CKRecord.ID,
                                      CKRecord>) -> Void) {
        deliver(completionHandler) { try await self.modifyRecords(saving: recordsToSave, deleting: recordIDsToDelete,
                                                                  savePolicy: savePolicy, atomically: atomically) }
    }

    /// Mirrors `CKDatabase.fetch(withQuery:inZoneWith:desiredKeys:resultsLimit:completionHandler:)`.
    public func fetch(withQuery query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil,
                      desiredKeys: [CKRecord.FieldKey]? = nil,
                      resultsLimit: Int = CKQueryOperation.maximumResults,
                      completionHandler: @escaping @Sendable (Result<(matchResults: [(CKRecord.ID, Result<CKRecord,
                              any Error>)],
                                                                      queryCursor: CKQueryOperation.Cursor?), any Error>) -> Void) {
        deliver(completionHandler) { try await self.records(matching: query, inZoneWith: zoneID,
                                                            desiredKeys: desiredKeys, resultsLimit: resultsLimit) }
    }

    /// Mirrors `CKDatabase.fetch(withCursor:desiredKeys:resultsLimit:completionHandler:)`.
    public func fetch(withCursor queryCursor: CKQueryOperation.Cursor, desiredKeys: [CKRecord.FieldKey]? = nil,
                      resultsLimit: Int = CKQueryOperation.maximumResults,
                      completionHandler: @escaping @Sendable (Result<(matchResults: [(CKRecord.ID, Result<CKRecord,
                              any Error>)],
                                                                      queryCursor: CKQueryOperation.Cursor?), any Error>) -> Void) {
        deliver(completionHandler) { try await self.records(continuingMatchFrom: queryCursor, desiredKeys: desiredKeys,
                                                            resultsLimit: resultsLimit) }
    }

    /// Mirrors the deprecated `CKDatabase.perform(_:inZoneWith:completionHandler:)`: the first page's records.
    public func perform(_ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?,
                        completionHandler: @escaping @Sendable ([CKRecord]?, (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) {
            try await self.records(matching: query, inZoneWith: zoneID).matchResults.compactMap { try? $0.1.get() }
        }
    }

    /// Mirrors `CKDatabase.fetchRecordZoneChanges(inZoneWith:since:desiredKeys:resultsLimit:completionHandler:)`.
    public func fetchRecordZoneChanges(inZoneWith zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?,
                                       desiredKeys: [CKRecord.FieldKey]? = nil,
                                       resultsLimit: Int? = nil,
                                       completionHandler: @escaping @Sendable (Result<(modificationResultsByID: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>],
                                                                                       deletions: [RecordZoneChange.Deletion], changeToken: CKServerChangeToken,
                                                                                       moreComing: Bool), any Error>) -> Void) {
        deliver(completionHandler) { try await self.recordZoneChanges(inZoneWith: zoneID, since: changeToken,
                                                                      desiredKeys: desiredKeys,
                resultsLimit: resultsLimit) }
    }

    /// Mirrors `CKDatabase.fetchDatabaseChanges(since:resultsLimit:completionHandler:)`.
    public func fetchDatabaseChanges(since changeToken: CKServerChangeToken?, resultsLimit: Int? = nil,
                                     completionHandler: @escaping @Sendable (Result<(modifications: [DatabaseChange.Modification], deletions: [DatabaseChange.Deletion],
                                                                                     changeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void) {
        deliver(completionHandler) { try await self.databaseChanges(since: changeToken, resultsLimit: resultsLimit) }
    }

    /// Mirrors `CKDatabase.fetchAllRecordZones(completionHandler:)`.
    public func fetchAllRecordZones(completionHandler: @escaping @Sendable ([CKRecordZone]?, (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.allRecordZones() }
    }

    /// Mirrors `CKDatabase.fetch(withRecordZoneID:completionHandler:)`.
    public func fetch(withRecordZoneID zoneID: CKRecordZone.ID, completionHandler: @escaping @Sendable (CKRecordZone?,
            (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.recordZone(for: zoneID) }
    }

    /// Mirrors `CKDatabase.save(_:completionHandler:)` for a zone.
    public func save(_ zone: CKRecordZone, completionHandler: @escaping @Sendable (CKRecordZone?,
            (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.save(zone) }
    }

    /// Mirrors `CKDatabase.delete(withRecordZoneID:completionHandler:)`.
    public func delete(withRecordZoneID zoneID: CKRecordZone.ID,
                       completionHandler: @escaping @Sendable (CKRecordZone.ID?, (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.deleteRecordZone(withID: zoneID) }
    }

    /// Mirrors `CKDatabase.fetchAllSubscriptions(completionHandler:)`.
    public func fetchAllSubscriptions(completionHandler: @escaping @Sendable ([CKSubscription]?,
            (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.allSubscriptions() }
    }

    /// Mirrors `CKDatabase.save(_:completionHandler:)` for a subscription.
    public func save(_ subscription: CKSubscription, completionHandler: @escaping @Sendable (CKSubscription?,
            (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.save(subscription) }
    }

    /// Mirrors `CKDatabase.delete(withSubscriptionID:completionHandler:)`.
    public func delete(withSubscriptionID id: CKSubscription.ID,
                       completionHandler: @escaping @Sendable (CKSubscription.ID?, (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.deleteSubscription(withID: id) }
    }

    /// Mirrors `CKDatabase.fetch(withRecordZoneIDs:completionHandler:)`.
    public func fetch(withRecordZoneIDs zoneIDs: [CKRecordZone.ID],
                      completionHandler: @escaping @Sendable (FetchAnswer<CKRecordZone.ID, CKRecordZone>) -> Void) {
        deliver(completionHandler) { try await self.recordZones(for: zoneIDs) }
    }

    /// Mirrors `CKDatabase.modifyRecordZones(saving:deleting:completionHandler:)`.
    public func modifyRecordZones(saving recordZonesToSave: [CKRecordZone],
                                  deleting recordZoneIDsToDelete: [CKRecordZone.ID],
                                  completionHandler: @escaping @Sendable (ModifyAnswer<CKRecordZone.ID,
                                          CKRecordZone>) -> Void) {
        deliver(completionHandler) { try await self.modifyRecordZones(saving: recordZonesToSave,
                                                                      deleting: recordZoneIDsToDelete) }
    }

    /// Mirrors `CKDatabase.fetch(withSubscriptionID:completionHandler:)`.
    public func fetch(withSubscriptionID subscriptionID: CKSubscription.ID,
                      completionHandler: @escaping @Sendable (CKSubscription?, (any Error)?) -> Void) {
        deliver({ r in completionHandler(try? r.get(), r.error) }) { try await self.subscription(for: subscriptionID) }
    }

    /// Mirrors `CKDatabase.fetch(withSubscriptionIDs:completionHandler:)`.
    public func fetch(withSubscriptionIDs subscriptionIDs: [CKSubscription.ID],
                      completionHandler: @escaping @Sendable (FetchAnswer<CKSubscription.ID, CKSubscription>) -> Void) {
        deliver(completionHandler) { try await self.subscriptions(for: subscriptionIDs) }
    }

    /// Mirrors `CKDatabase.modifySubscriptions(saving:deleting:completionHandler:)`.
    public func modifySubscriptions(saving subscriptionsToSave: [CKSubscription],
                                    deleting subscriptionIDsToDelete: [CKSubscription.ID],
                                    completionHandler: @escaping @Sendable (ModifyAnswer<CKSubscription.ID,
                                            CKSubscription>) -> Void) {
        deliver(completionHandler) { try await self.modifySubscriptions(saving: subscriptionsToSave,
                deleting: subscriptionIDsToDelete) }
    }
}

extension Result {
    /// The failure, if any.
    var error: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
