import Foundation
import StratusJSON

/// Mirrors `CKDatabase`: the public, private or shared database of a container, with CloudKit's async/await and
/// completion-handler calls and `add(_:)` for operations. Every call is one or more CloudKit Web Services requests.
public final class CKDatabase: NSObject, @unchecked Sendable {
    /// Mirrors `CKDatabase.Scope`, with CloudKit's raw values.
    public enum Scope: Int, Sendable {
        case `public` = 1, `private` = 2, shared = 3

        var pathName: String {
            switch self {
            case .public: "public"
            case .private: "private"
            case .shared: "shared"
            }
        }
    }

    /// Mirrors `CKDatabase.databaseScope`.
    public let databaseScope: Scope
    /// The connection, held here so a database outlives a container the app did not keep
    /// (`CKContainer.default().privateCloudDatabase`), as CloudKit's do.
    let services: WebServices
    private(set) weak var container: CKContainer?
    private let operationQueue: OperationQueue

    init(container: CKContainer, scope: Scope) {
        self.container = container
        self.services = container.services
        self.databaseScope = scope
        operationQueue = OperationQueue()
        operationQueue.name = "StratusKit.\(scope.pathName)"
        operationQueue.maxConcurrentOperationCount = 4
    }

    /// Mirrors `CKDatabase.add(_:)`: runs an operation against this database on its queue.
    public func add(_ operation: CKDatabaseOperation) {
        operation.prepare(container: container, database: self)
        operationQueue.addOperation(operation)
    }

    /// One request to this database.
    func call(_ action: String, _ body: WireObject?) async throws -> WireObject {
        try await services.database(databaseScope, action, body)
    }

    /// One item of an answer: a record, or what the server said instead (a per-item error).
    enum AnswerItem {
        case record(CKRecord)
        case failure(WireObject)
    }

    /// Decodes records (and downloads the assets they name) in one step.
    func decode(_ items: [WireObject], zoneID: CKRecordZone.ID) async throws -> [AnswerItem] {
        let downloads = AssetDownloads(cache: services.assets)
        var out: [AnswerItem] = []
        out.reserveCapacity(items.count)
        for item in items {
            if let r = RecordCoder.record(item, scope: databaseScope, zoneID: zoneID, assets: downloads) {
                (r as? CKShare)?.resolveURL(base: services.configuration.serverURL)
                out.append(.record(r))
            } else {
                out.append(.failure(item))
            }
        }
        if !downloads.pending.isEmpty { try await downloads.download(with: services) }
        return out
    }

    /// The one answer a single-item call (save one, delete one) asked for; `what` names it when the server left it out.
    func answer<K: Hashable, V>(_ results: [K: Result<V, any Error>], _ key: K, _ what: String) throws -> V {
        guard let r = results[key] else { throw CKError.make(.serverResponseLost, "\(what) was not answered") }
        return try r.get()
    }

    /// The record ID a per-item answer is about.
    func recordID(_ item: WireObject, zoneID: CKRecordZone.ID) -> CKRecord.ID? {
        guard let name = item["recordName"]?.string else { return nil }
        let zone = item["zoneID"] != nil ? RecordCoder.zoneID(item["zoneID"], scope: databaseScope) : zoneID
        return CKRecord.ID(recordName: name, zoneID: zone)
    }

    /// A short form for logs.
    public override var description: String { "<CKDatabase \(databaseScope.pathName)>" }
}
