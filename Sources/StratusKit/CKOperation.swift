import Foundation

/// Mirrors `CKOperation`: an `Operation` that talks to Stratus. Its work runs as one task while the operation's
/// thread waits, so its blocks are called one at a time (serially, as CloudKit promises) and the operation is
/// finished when its final block has returned. `cancel()` stops the work between requests and ends it with
/// `.operationCancelled`.
open class CKOperation: Operation, @unchecked Sendable {
    /// Mirrors `CKOperation.ID`.
    public typealias ID = String

    /// Mirrors `CKOperation.Configuration`: the container to use and the request time limit.
    public final class Configuration: @unchecked Sendable {
        /// Mirrors `CKOperation.Configuration.container`.
        public var container: CKContainer?
        /// Mirrors `CKOperation.Configuration.timeoutIntervalForRequest`.
        public var timeoutIntervalForRequest: TimeInterval = 60
        /// Mirrors `CKOperation.Configuration.timeoutIntervalForResource`.
        public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
        /// Mirrors `CKOperation.Configuration.allowsCellularAccess`.
        public var allowsCellularAccess = true
        /// Mirrors `CKOperation.Configuration.isLongLived`.
        public var isLongLived = false
        /// Mirrors `CKOperation.Configuration.qualityOfService`.
        public var qualityOfService: QualityOfService = .default
        /// Mirrors `CKOperation.Configuration()`.
        public init() {}
    }

    /// Mirrors `CKOperation.configuration`: this operation's own, else its group's default configuration.
    public var configuration: Configuration! {
        get { ownConfiguration ?? group?.defaultConfiguration ?? defaultConfiguration }
        set { ownConfiguration = newValue }
    }
    private var ownConfiguration: Configuration?
    private let defaultConfiguration = Configuration()
    /// Mirrors `CKOperation.group`: the user action this operation is part of.
    public var group: CKOperationGroup?
    /// Mirrors `CKOperation.operationID`.
    public let operationID: CKOperation.ID = UUID().uuidString
    /// Mirrors `CKOperation.longLivedOperationWasPersistedBlock`: called when a long-lived operation (its
    /// configuration's `isLongLived`) starts and can be found with `CKContainer.fetchLongLivedOperation(withID:)`.
    public var longLivedOperationWasPersistedBlock: (() -> Void)?
    var resolvedContainer: CKContainer?
    private var task: Task<Void, Never>?
    private let taskLock = NSLock()

    /// Mirrors `CKOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    func prepare(container: CKContainer?, database: CKDatabase?) {
        resolvedContainer = configuration.container ?? container
    }

    /// The container this operation uses: its configuration's, the one it was added to, or the default one.
    var container: CKContainer {
        if let c = resolvedContainer ?? configuration.container { return c }
        let c = CKContainer.default()
        resolvedContainer = c
        return c
    }

    /// Runs the operation's work and waits for it, so the operation finishes after its last block.
    open override func main() {
        let longLived = configuration.isLongLived ? container.longLivedOperations : nil
        if let longLived {
            longLived.register(self)
            longLivedOperationWasPersistedBlock?()
        }
        defer { longLived?.remove(operationID) }
        let done = DispatchSemaphore(value: 0)
        let t = Task.detached { [self] in
            await self.execute()
            done.signal()
        }
        taskLock.lock()
        task = t
        taskLock.unlock()
        done.wait()
    }

    /// Mirrors `CKOperation.cancel()`: stops between requests and ends with `.operationCancelled`.
    open override func cancel() {
        super.cancel()
        taskLock.lock()
        let t = task
        taskLock.unlock()
        t?.cancel()
    }

    /// The operation's work; subclasses call their blocks from here.
    func execute() async {}

    /// Throws `.operationCancelled` once the operation was cancelled.
    func checkCancelled() throws {
        if isCancelled { throw CKError.make(.operationCancelled, "the operation was cancelled") }
    }
}

/// Mirrors `CKDatabaseOperation`: an operation on one database (the private database unless set or added to one).
open class CKDatabaseOperation: CKOperation, @unchecked Sendable {
    /// Mirrors `CKDatabaseOperation.database`.
    public var database: CKDatabase?

    override func prepare(container: CKContainer?, database: CKDatabase?) {
        super.prepare(container: container, database: database)
        if let database { self.database = database }
    }

    var targetDatabase: CKDatabase { database ?? container.privateCloudDatabase }
}

/// A `.partialFailure` carrying each failed item's error, or nil when none failed.
func partialFailure(_ errors: [AnyHashable: any Error], _ what: String) -> CKError? {
    guard !errors.isEmpty else { return nil }
    return CKError.make(.partialFailure, "\(errors.count) \(what) failed", [CKPartialErrorsByItemIDKey: errors])
}
