import Foundation
import StratusJSON

/// Mirrors `CKQuerySubscription`: notifies when records matching a predicate are created, updated or deleted.
public final class CKQuerySubscription: CKSubscription, @unchecked Sendable {
    /// Mirrors `CKQuerySubscription.Options`.
    public struct Options: OptionSet, Sendable {
        /// The option set's raw bits.
        public let rawValue: UInt
        /// An option set from its raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Mirrors `CKQuerySubscription.Options.firesOnRecordCreation`.
        public static let firesOnRecordCreation = Options(rawValue: 1 << 0)
        /// Mirrors `CKQuerySubscription.Options.firesOnRecordUpdate`.
        public static let firesOnRecordUpdate = Options(rawValue: 1 << 1)
        /// Mirrors `CKQuerySubscription.Options.firesOnRecordDeletion`.
        public static let firesOnRecordDeletion = Options(rawValue: 1 << 2)
        /// Mirrors `CKQuerySubscription.Options.firesOnce`.
        public static let firesOnce = Options(rawValue: 1 << 3)
    }

    /// Mirrors `CKQuerySubscription.recordType`.
    public let recordType: CKRecord.RecordType?
    /// Mirrors `CKQuerySubscription.querySubscriptionOptions`.
    public let querySubscriptionOptions: Options
    /// Mirrors `CKQuerySubscription.zoneID`: nil watches every zone of the database.
    public var zoneID: CKRecordZone.ID?
    let filters: Result<[WireObject], CKError>
    /// Mirrors `CKQuerySubscription.predicate`; see `CKQuery.predicate` for how it is read on Linux.
    public let predicate: NSPredicate

    /// Mirrors `CKQuerySubscription(recordType:predicate:subscriptionID:options:)`.
    public convenience init(recordType: CKRecord.RecordType, predicate: NSPredicate, subscriptionID: CKSubscription.ID,
                            options querySubscriptionOptions: Options = [.firesOnRecordCreation, .firesOnRecordUpdate,
                                    .firesOnRecordDeletion]) {
        self.init(recordType: recordType, predicate: predicate, id: subscriptionID, options: querySubscriptionOptions)
    }

    /// Mirrors the deprecated `CKQuerySubscription(recordType:predicate:options:)`: the subscription ID is a UUID.
    @available(*, deprecated, renamed: "init(recordType:predicate:subscriptionID:options:)")
    public convenience init(recordType: CKRecord.RecordType, predicate: NSPredicate,
                            options querySubscriptionOptions: Options = [.firesOnRecordCreation, .firesOnRecordUpdate,
                                    .firesOnRecordDeletion]) {
        self.init(recordType: recordType, predicate: predicate, id: UUID().uuidString,
                  options: querySubscriptionOptions)
    }

    private init(recordType: CKRecord.RecordType, predicate: NSPredicate, id subscriptionID: CKSubscription.ID,
                 options: Options) {
        self.recordType = recordType
        self.predicate = predicate
        filters = CKQuery(recordType: recordType, predicate: predicate).filters.map(RecordCoder.inMilliseconds)
        querySubscriptionOptions = options
        super.init(subscriptionID: subscriptionID, type: .query)
    }

    /// StratusKit's spelling for a predicate given as a format string, as `CKQuery(recordType:predicateFormat:_:)`.
    public init(recordType: CKRecord.RecordType, predicateFormat: String, _ arguments: any CKRecordValueProtocol...,
                subscriptionID: CKSubscription.ID = UUID().uuidString, options: Options) {
        self.recordType = recordType
        predicate = NSPredicate(value: true)
        filters = PredicateParser.filters(predicateFormat, arguments).map(RecordCoder.inMilliseconds)
        querySubscriptionOptions = options
        super.init(subscriptionID: subscriptionID, type: .query)
    }

    init(recordType: CKRecord.RecordType, filters: [WireObject], subscriptionID: CKSubscription.ID, options: Options) {
        self.recordType = recordType
        predicate = NSPredicate(value: true)
        self.filters = .success(filters)
        querySubscriptionOptions = options
        super.init(subscriptionID: subscriptionID, type: .query)
    }

    /// Adds the record type, options, zone and the filters the predicate became to the archive.
    public override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        if let recordType { coder.encode(recordType as NSString, forKey: "recordType") }
        coder.encode(Int(querySubscriptionOptions.rawValue), forKey: "options")
        if let zoneID { coder.encode(zoneID, forKey: "zoneID") }
        if case .success(let f) = filters { coder.encode(JSON(f).encoded as NSData, forKey: "filters") }
    }

    /// Reads what `encode(with:)` wrote; nil for a damaged archive. Its `predicate` is `NSPredicate(value: true)`;
    /// the filters it stood for are kept and saved as they were.
    public required init?(coder: NSCoder) {
        recordType = coder.optionalObject(of: NSString.self, forKey: "recordType") as String?
        querySubscriptionOptions = Options(rawValue: UInt(clamping: coder.decodeInteger(forKey: "options")))
        zoneID = coder.optionalObject(of: CKRecordZone.ID.self, forKey: "zoneID")
        predicate = NSPredicate(value: true)
        if let data = coder.optionalObject(of: NSData.self, forKey: "filters") as Data?,
           let f = JSON(parsing: data)?.objects {
            filters = .success(f)
        } else {
            filters = .failure(CKError.make(.invalidArguments,
                                            "the archived subscription's predicate was not one CloudKit accepts"))
        }
        super.init(coder: coder)
    }

    override func wire() throws -> WireObject {
        var o = try super.wire()
        o["subscriptionType"] = "query"
        var q: WireObject = ["recordType": JSON(recordType ?? "")]
        let f = try filters.get()
        if !f.isEmpty { q["filterBy"] = JSON(f) }
        o["query"] = JSON(q)
        var fires: [String] = []
        if querySubscriptionOptions.contains(.firesOnRecordCreation) { fires.append("create") }
        if querySubscriptionOptions.contains(.firesOnRecordUpdate) { fires.append("update") }
        if querySubscriptionOptions.contains(.firesOnRecordDeletion) { fires.append("delete") }
        o["firesOn"] = JSON(fires)
        o["firesOnce"] = JSON(querySubscriptionOptions.contains(.firesOnce))
        if let zoneID {
            o["zoneWide"] = false
            o["zoneID"] = JSON(RecordCoder.zoneJSON(zoneID))
        } else {
            o["zoneWide"] = true
        }
        return o
    }
}
