import Foundation

extension CKSyncEngine {
    /// Database changes from the saved token, then each changed zone's records from its saved token; every page's
    /// token is saved (and handed to the app as `.stateUpdate`) as soon as its changes were reported. An explicit fetch
    /// (`fetchChanges(_:)`) throws what failed, as CloudKit's does ("if the fetch fails, the error describes the
    /// failure"), after every event was handled: the database changes' error as it is, or a `.partialFailure` holding
    /// each zone that could not be fetched (each also reported in its `didFetchRecordZoneChanges`).
    func performFetch(reason: SyncReason, options asked: FetchChangesOptions, persistent: Bool) async throws {
        let context = FetchChangesContext(reason: reason, options: asked)
        let options = await delegate?.nextFetchChangesOptions(context, syncEngine: self) ?? context.options
        await emit(.willFetchChanges(.init(context: context)))
        var zones: [CKRecordZone.ID] = []
        var token = state.databaseChangeToken
        while true {
            let page: (modifications: [CKDatabase.DatabaseChange.Modification],
                       deletions: [CKDatabase.DatabaseChange.Deletion],
                       changeToken: CKServerChangeToken, moreComing: Bool)
            do {
                page = try await withRetry(persistent: persistent) { [token] in try await database.databaseChanges(since: token) }
            } catch let e as CKError where e.code == .changeTokenExpired && token != nil {
                // The server cannot go on from there: start over (the app sees every zone again).
                token = nil
                continue
            }
            if !page.modifications.isEmpty || !page.deletions.isEmpty {
                await emit(.fetchedDatabaseChanges(.init(modifications: page.modifications, deletions: page.deletions)))
            }
            for d in page.deletions {
                state.setToken(nil, for: d.zoneID)
                zones.removeAll { $0 == d.zoneID }
            }
            for m in page.modifications where !zones.contains(m.zoneID) { zones.append(m.zoneID) }
            token = page.changeToken
            state.setDatabaseToken(page.changeToken)
            await emit(.stateUpdate(.init(stateSerialization: state.serialization)))
            if !page.moreComing { break }
        }
        var failures: [AnyHashable: any Error] = [:]
        let ordered = options.prioritizedZoneIDs.filter { zones.contains($0) } + zones.filter { !options.prioritizedZoneIDs.contains($0) }
        for zone in ordered where options.scope.contains(zone) {
            try Task.checkCancellation()
            await emit(.willFetchRecordZoneChanges(.init(zoneID: zone)))
            var failure: CKError?
            do {
                try await fetchZone(zone, persistent: persistent)
            } catch let e as CKError {
                failure = e
                failures[zone] = e
            }
            await emit(.didFetchRecordZoneChanges(.init(zoneID: zone, error: failure)))
        }
        await emit(.didFetchChanges(.init(context: context)))
        if !persistent, let failure = partialFailure(failures, "zone fetches") { throw failure }
    }

    private func fetchZone(_ zone: CKRecordZone.ID, persistent: Bool) async throws {
        var token = state.token(for: zone)
        while true {
            let page: (modificationResultsByID: [CKRecord.ID: Result<CKDatabase.RecordZoneChange.Modification,
                                                 any Error>],
                       deletions: [CKDatabase.RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool)
            do {
                page = try await withRetry(persistent: persistent) { [token] in try await database.recordZoneChanges(inZoneWith: zone, since: token) }
            } catch let e as CKError where e.code == .changeTokenExpired && token != nil {
                token = nil
                continue
            }
            let modifications = page.modificationResultsByID.values.compactMap { try? $0.get() }
            if !modifications.isEmpty || !page.deletions.isEmpty {
                await emit(.fetchedRecordZoneChanges(.init(modifications: modifications, deletions: page.deletions)))
            }
            token = page.changeToken
            state.setToken(page.changeToken, for: zone)
            await emit(.stateUpdate(.init(stateSerialization: state.serialization)))
            if !page.moreComing { return }
        }
    }
}
