/// Receives records one at a time, straight from storage, for callers that only pass them on (the API
/// writing a query page as JSON): no record and no field dictionary is built, and freed again, per row.
/// Calls come as `beginRecord`, then `field` for each present value, then `endRecord`.
public protocol RecordSink {
    mutating func beginRecord(_ header: RecordHeader)
    mutating func field(_ name: String, _ value: FieldValue)
    mutating func endRecord()
    /// The header with its text borrowed from storage (see `BorrowedRecordHeader`).
    mutating func beginRecord(borrowing header: BorrowedRecordHeader)
    /// A STRING field's UTF-8 text, borrowed for this call.
    mutating func field(_ name: String, utf8: UnsafeBufferPointer<UInt8>)
    /// The record's `parent` and `share` system fields, before `endRecord`, for records that have either.
    mutating func links(parent: String?, share: String?)
    /// Whether the sink would rather have a record's fields in name order than in the statement's: the order a
    /// record's `RecordFields` keep, which they append to without a search.
    var takesFieldsInNameOrder: Bool { get }
}

/// Sinks that keep what they receive get Strings made for them.
extension RecordSink {
    public mutating func beginRecord(borrowing header: BorrowedRecordHeader) { beginRecord(header.owned) }
    public mutating func field(_ name: String, utf8: UnsafeBufferPointer<UInt8>) { field(name, .string(String(decoding: utf8, as: UTF8.self))) }
    public mutating func links(parent: String?, share: String?) {}
    public var takesFieldsInNameOrder: Bool { false }
}

/// A record's system fields, as a `RecordSink` receives them.
public struct RecordHeader: Sendable {
    public var recordName, recordType: String
    public var zoneID: ZoneID
    public var recordChangeTag: String
    public var created, modified: RecordStamp

    public init(recordName: String, recordType: String, zoneID: ZoneID, recordChangeTag: String, created: RecordStamp, modified: RecordStamp) {
        self.recordName = recordName
        self.recordType = recordType
        self.zoneID = zoneID
        self.recordChangeTag = recordChangeTag
        self.created = created
        self.modified = modified
    }
}
