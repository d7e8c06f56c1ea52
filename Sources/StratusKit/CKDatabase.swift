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

    /// A modify operation of one kind of item (records, zones, subscriptions): its saves' and deletes' results.
    typealias Modify<Item, ID: Hashable> = ([Item], [ID]) async throws -> ([ID: Result<Item, any Error>],
            [ID: Result<Void, any Error>])

    /// `save(_:)` of one item: a modify of that item alone, its result or its error.
    func saveOne<Item, ID: Hashable>(_ item: Item, _ id: ID, _ what: String, _ modify: Modify<Item,
                                     ID>) async throws -> Item {
        try answer(try await modify([item], []).0, id, what)
    }

    /// `delete…(withID:)` of one item: a modify deleting that item alone; the ID once deleted, or its error.
    func deleteOne<Item, ID: Hashable>(_ id: ID, _ what: String, _ modify: Modify<Item, ID>) async throws -> ID {
        try answer(try await modify([], [id]).1, id, what)
        return id
    }

    /// The one answer a single-item call (save one, delete one) asked for; `what` names it when the server left it out.
    func answer<K: Hashable, V>(_ results: [K: Result<V, any Error>], _ key: K, _ what: String) throws -> V {
        guard let r = results[key] else { throw CKError.make(.serverResponseLost, "\(what) was not answered") }
        return try r.get()
    }

    /// A modify's per-item answers, in the order of its operations (saves first), as the results of its saves and of
    /// its deletes. `zoneOf` names the zone an item's error is about; `saved` reads a saved item back.
    func modifyResults<Item, ID: Hashable>(_ items: [WireObject], saving saves: [Item], id: (Item) -> ID,
                                           deleting deletes: [ID],
                                           zoneOf: (ID) -> CKRecordZone.ID, saved: (WireObject, Item) -> Item)
        -> (saveResults: [ID: Result<Item, any Error>], deleteResults: [ID: Result<Void, any Error>]) {
        func refusal(_ item: WireObject, _ key: ID) -> (any Error)? {
            item["serverErrorCode"] != nil ? CKError.from(server: item, scope: databaseScope, zoneID: zoneOf(key)) : nil
        }
        var saveResults: [ID: Result<Item, any Error>] = [:], deleteResults: [ID: Result<Void, any Error>] = [:]
        for (item, value) in zip(items, saves) {
            let key = id(value)
            saveResults[key] = refusal(item, key).map { .failure($0) } ?? .success(saved(item, value))
        }
        for (item, key) in zip(items.dropFirst(saves.count), deletes) { deleteResults[key] = refusal(item,
                key).map { .failure($0) } ?? .success(()) }
        return (saveResults, deleteResults)
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
