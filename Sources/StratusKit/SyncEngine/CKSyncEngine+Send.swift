import Foundation

extension CKSyncEngine {
    /// Pending zone changes, then the delegate's batches of record changes until it has none (or a batch makes no
    /// progress), each reported as it is answered. An explicit send (`sendChanges(_:)`) then throws, as CloudKit's
    /// does, when the server refused any record or zone: a `.partialFailure` whose `partialErrorsByItemID` holds each
    /// one's error, after the app has handled every event (the failed saves among them).
    func performSend(reason: SyncReason, options: SendChangesOptions, persistent: Bool) async throws {
        let records = state.pendingRecordZoneChanges.filter { options.scope.contains($0.recordID) }
        let zones = state.pendingDatabaseChanges
        guard !records.isEmpty || !zones.isEmpty || state.hasPendingUntrackedChanges else { return }
        let context = SendChangesContext(reason: reason, options: options)
        await emit(.willSendChanges(.init(context: context)))
        var failures: [AnyHashable: any Error] = [:]
        if !zones.isEmpty { failures.merge(try await sendZones(zones, persistent: persistent)) { a, _ in a } }
        var rounds = 0
        while let batch = await delegate?.nextRecordZoneChangeBatch(context, syncEngine: self), rounds < 10_000 {
            rounds += 1
            try Task.checkCancellation()
            let before = state.pendingRecordZoneChanges.count
            failures.merge(try await send(batch, persistent: persistent)) { a, _ in a }
            // A batch that settled nothing (every record failed for a reason the app must handle) ends the send.
            if state.pendingRecordZoneChanges.count >= before { break }
        }
        await emit(.didSendChanges(.init(context: context)))
        if !persistent, let failure = partialFailure(failures, "changes") { throw failure }
    }

    /// Sends zone saves and deletes; returns the errors of those the server refused, by zone ID.
    private func sendZones(_ changes: [PendingDatabaseChange],
                           persistent: Bool) async throws -> [AnyHashable: any Error] {
        var saves: [CKRecordZone] = [], deletes: [CKRecordZone.ID] = []
        for c in changes {
            switch c {
            case .saveZone(let z): saves.append(z)
            case .deleteZone(let id): deletes.append(id)
            }
        }
        let (s, d) = try await withRetry(persistent: persistent) { try await database.modifyRecordZones(saving: saves,
                deleting: deletes) }
        var saved: [CKRecordZone] = [], failed: [Event.SentDatabaseChanges.FailedZoneSave] = []
        var deleted: [CKRecordZone.ID] = [], failedDeletes: [CKRecordZone.ID: CKError] = [:]
        for z in saves {
            switch s[z.zoneID] {
            case .success(let zone)?: saved.append(zone)
            case .failure(let e)?: failed.append(.init(zone: z, error: e as? CKError ?? CKError.make(.internalError,
                    "\(e)")))
            case nil: break
            }
        }
        for id in deletes {
            switch d[id] {
            case .success?: deleted.append(id)
            case .failure(let e)?: failedDeletes[id] = e as? CKError ?? CKError.make(.internalError, "\(e)")
            case nil: break
            }
        }
        state.remove(pendingDatabaseChanges: saved.map { .saveZone($0) } + failed.map { .saveZone($0.zone) } + deleted.map { .deleteZone($0) }
                        + failedDeletes.keys.map { .deleteZone($0) })
        for id in deleted { state.setToken(nil, for: id) }
        await emit(.sentDatabaseChanges(.init(savedZones: saved, failedZoneSaves: failed, deletedZoneIDs: deleted,
                                              failedZoneDeletes: failedDeletes)))
        var failures: [AnyHashable: any Error] = [:]
        for f in failed { failures[f.zone.zoneID] = f.error }
        for (id, e) in failedDeletes { failures[id] = e }
        return failures
    }

    /// One batch: split in halves on `.limitExceeded`; records that failed for a transient reason are sent again
    /// after the wait the error asks for; the rest is reported and leaves the pending changes (a failed save for the
    /// app to handle — merge a `.serverRecordChanged`, recreate a zone — and add again). Returns the errors of the
    /// records that failed for good, by record ID.
    @discardableResult
    func send(_ batch: RecordZoneChangeBatch, persistent: Bool) async throws -> [AnyHashable: any Error] {
        var failures: [AnyHashable: any Error] = [:]
        var saves = batch.recordsToSave, deletes = batch.recordIDsToDelete
        var attempt = 0
        while !saves.isEmpty || !deletes.isEmpty {
            let result: (saveResults: [CKRecord.ID: Result<CKRecord, any Error>],
                         deleteResults: [CKRecord.ID: Result<Void, any Error>])
            do {
                result = try await withRetry(persistent: persistent) { [saves, deletes] in
                    try await database.modifyRecords(saving: saves, deleting: deletes,
                                                     savePolicy: .ifServerRecordUnchanged,
                            atomically: batch.atomicByZone)
                }
            } catch let e as CKError where e.code == .limitExceeded && saves.count + deletes.count > 1 {
                let half = (saves.count + deletes.count) / 2
                let firstSaves = Array(saves.prefix(half)), firstDeletes = Array(deletes.prefix(max(0,
                        half - saves.count)))
                failures.merge(try await send(RecordZoneChangeBatch(recordsToSave: firstSaves,
                                                                    recordIDsToDelete: firstDeletes,
                        atomicByZone: batch.atomicByZone),
                                              persistent: persistent)) { a, _ in a }
                failures.merge(try await send(RecordZoneChangeBatch(recordsToSave: Array(saves.dropFirst(firstSaves.count)), recordIDsToDelete: Array(deletes.dropFirst(firstDeletes.count)),
                                                                    atomicByZone: batch.atomicByZone), persistent: persistent)) { a, _ in a }
                return failures
            } catch let e as CKError where [.zoneNotFound, .userDeletedZone, .permissionFailure, .invalidArguments,
                                            .quotaExceeded].contains(e.code) {
                // The whole request was refused for a reason the app must act on (recreate the zone, free space):
                // every record of it is a failed save or delete carrying that error, as CloudKit reports it.
                state.remove(pendingRecordZoneChanges: saves.map { .saveRecord($0.recordID) } + deletes.map { .deleteRecord($0) })
                var failedDeletes: [CKRecord.ID: CKError] = [:]
                for id in deletes { failedDeletes[id] = e }
                await emit(.sentRecordZoneChanges(.init(savedRecords: [],
                                                        failedRecordSaves: saves.map { .init(record: $0, error: e) },
                                                        deletedRecordIDs: [], failedRecordDeletes: failedDeletes)))
                for r in saves { failures[r.recordID] = e }
                for id in deletes { failures[id] = e }
                return failures
            }
            var saved: [CKRecord] = [], failedSaves: [Event.SentRecordZoneChanges.FailedRecordSave] = []
            var deleted: [CKRecord.ID] = [], failedDeletes: [CKRecord.ID: CKError] = [:]
            var retrySaves: [CKRecord] = [], retryDeletes: [CKRecord.ID] = []
            var wait: Double = 0
            for r in saves {
                switch result.saveResults[r.recordID] {
                case .success(let s)?: saved.append(s)
                case .failure(let e)?:
                    let ck = e as? CKError ?? CKError.make(.internalError, "\(e)")
                    if Self.retryable(ck) { retrySaves.append(r); wait = max(wait,
                            ck.retryAfterSeconds ?? 0) } else { failedSaves.append(.init(record: r, error: ck)) }
                case nil: retrySaves.append(r)
                }
            }
            for id in deletes {
                switch result.deleteResults[id] {
                case .success?: deleted.append(id)
                case .failure(let e)?:
                    let ck = e as? CKError ?? CKError.make(.internalError, "\(e)")
                    if Self.retryable(ck) { retryDeletes.append(id); wait = max(wait,
                            ck.retryAfterSeconds ?? 0) } else { failedDeletes[id] = ck }
                case nil: retryDeletes.append(id)
                }
            }
            state.remove(pendingRecordZoneChanges: saved.map { .saveRecord($0.recordID) } + failedSaves.map { .saveRecord($0.record.recordID) }
                            + deleted.map { .deleteRecord($0) } + failedDeletes.keys.map { .deleteRecord($0) })
            if !saved.isEmpty || !failedSaves.isEmpty || !deleted.isEmpty || !failedDeletes.isEmpty {
                await emit(.sentRecordZoneChanges(.init(savedRecords: saved, failedRecordSaves: failedSaves,
                                                        deletedRecordIDs: deleted, failedRecordDeletes: failedDeletes)))
            }
            for f in failedSaves { failures[f.record.recordID] = f.error }
            for (id, e) in failedDeletes { failures[id] = e }
            saves = retrySaves
            deletes = retryDeletes
            guard !saves.isEmpty || !deletes.isEmpty else { return failures }
            // Records that failed only because another record of an atomic batch did, or for a moment: again, later.
            guard persistent || attempt < 4 else { return failures }
            try await Task.sleep(for: .seconds(wait > 0 ? wait : Self.delay(nil, attempt: attempt)))
            attempt += 1
        }
        return failures
    }

    static func retryable(_ e: CKError) -> Bool {
        isTransient(e.code) || e.code == .batchRequestFailed
    }
}
