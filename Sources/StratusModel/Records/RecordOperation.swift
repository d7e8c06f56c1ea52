/// One operation of a modify batch.
public struct RecordOperation: Sendable, Hashable {
    public var operationType: OperationType
    /// For deletes only `recordName` and `recordChangeTag` matter.
    public var record: StoredRecord
    public var desiredKeys: [String]?
    /// For a share record (`cloudkit.share`): what the operation asks of the share.
    public var share: ShareRequest?
    /// The zone the request's `parent` reference names, when it names one: it must be the record's own.
    public var parentZone: String?
    /// Fields the request sent with a null value: an update removes them (a record set `record["x"] = nil`).
    public var removedFields: Set<String> = []
    /// Fields the request sent as encrypted (StratusKit's `encryptedValues`): a field made for one is ENCRYPTED.
    public var encryptedFields: Set<String> = []
    /// The server making a user's `Users` record (see `UserRecord`): the one way one is created.
    package var makesUserRecord = false

    public init(_ operationType: OperationType, _ record: StoredRecord, desiredKeys: [String]? = nil) {
        self.operationType = operationType
        self.record = record
        self.desiredKeys = desiredKeys
    }

    /// The most operations one modify request may carry (see `RequestLimits`).
    public static let maximumPerBatch = RequestLimits.itemsPerOperation
    /// A bulk import's all-or-nothing batch (`stratus records import`): larger, because each commit rewrites the
    /// index pages its records touched, and a page touched by many records of one batch is written once.
    public static let maximumPerImportBatch = 5_000
}
