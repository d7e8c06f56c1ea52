import Foundation

/// The long-lived operations of one container that are running in this process. On Apple's platforms the system's
/// CloudKit daemon keeps them across app launches; StratusKit runs every operation in the app's own process, so an
/// operation is found by its ID while it runs and is gone when the app exits (see "Differences from CloudKit").
final class LongLivedOperations: @unchecked Sendable {
    private let lock = NSLock()
    private var running: [CKOperation.ID: CKOperation] = [:]

    func register(_ operation: CKOperation) {
        lock.withLock { running[operation.operationID] = operation }
    }

    func remove(_ id: CKOperation.ID) {
        lock.withLock { running[id] = nil }
    }

    var ids: [CKOperation.ID] { lock.withLock { running.keys.sorted() } }

    func operation(_ id: CKOperation.ID) -> CKOperation? { lock.withLock { running[id] } }
}
