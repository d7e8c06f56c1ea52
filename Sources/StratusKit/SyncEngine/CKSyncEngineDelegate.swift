import Foundation

/// Mirrors `CKSyncEngineDelegate`: the app's side of the sync engine — it handles the engine's events (one at a
/// time, in order) and hands it the records to send.
public protocol CKSyncEngineDelegate: AnyObject, Sendable {
    /// Mirrors `handleEvent(_:syncEngine:)`. Do not call `fetchChanges`/`sendChanges` from here (they wait for the
    /// operation that delivers this event).
    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async
    /// Mirrors `nextRecordZoneChangeBatch(_:syncEngine:)`: the next records to send, or nil when there are none.
    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext,
                                   syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch?
    /// Mirrors `nextFetchChangesOptions(_:syncEngine:)`.
    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext,
                                 syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions
}

extension CKSyncEngineDelegate {
    /// The options the fetch was asked with (CloudKit's default).
    public func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext,
                                        syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        context.options
    }
}
