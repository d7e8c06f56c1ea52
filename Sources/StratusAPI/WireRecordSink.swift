import StratusHTTP
import StratusModel

/// Writes records as CloudKit JSON as the store reads them (a query page without building its records).
struct WireRecordSink: RecordSink {
    let encoding: WireEncoding
    var writer: JSONWriter
    private var header: RecordHeader?
    /// The zone of a record begun with a borrowed header (its stamps are already written).
    private var borrowedZone: ZoneID?
    /// How many records were written.
    private(set) var records = 0
    private var links: (parent: String?, share: String?)?
    /// The ENCRYPTED fields of the record being written (nil for the usual type without any).
    private var encrypted: Set<String>?

    /// Where the page goes past `AnswerWriter.spillBytes`, record by record (nil: it is built whole).
    var spool: AnswerSpool?
    /// Why the spool refused the page (the answer is that refusal).
    private(set) var spoolFailure: (any Error)?
    /// Whether any of the page went to the spool (then it cannot be taken back to a mark).
    private(set) var spilled = false

    init(encoding: WireEncoding, writer: JSONWriter, spool: AnswerSpool? = nil) {
        self.encoding = encoding
        self.writer = writer
        self.spool = spool
    }

    /// Throws what the spool refused, if it did.
    func checkSpool() throws { if let spoolFailure { throw spoolFailure } }

    mutating func beginRecord(_ h: RecordHeader) {
        header = h
        records += 1
        encrypted = encoding.encryptedFields.isEmpty ? nil : encoding.encryptedFields[h.recordType]
        encoding.recordStart(h.recordName, h.recordType, h.recordChangeTag, &writer)
    }

    /// Everything but the fields is written here, the stamps ahead of the fields, while the text is borrowed.
    mutating func beginRecord(borrowing h: BorrowedRecordHeader) {
        records += 1
        borrowedZone = h.zoneID
        encrypted = encoding.encryptedFields.isEmpty ? nil : encoding.encryptedFields[h.recordType]
        encoding.recordStart(borrowing: h, &writer)
    }

    mutating func field(_ name: String, _ value: FieldValue) { encoding.field(name, value,
            encrypted: encrypted?.contains(name) == true, &writer) }

    mutating func field(_ name: String, utf8: UnsafeBufferPointer<UInt8>) {
        writer.key(name)
        writer.beginObject()
        writer.field("value", utf8: utf8)
        writer.field("type", "STRING" as StaticString)
        if encrypted?.contains(name) == true { writer.field("isEncrypted", true) }
        writer.endObject()
    }

    mutating func links(parent: String?, share: String?) { links = (parent, share) }

    mutating func endRecord() {
        if let h = header {
            encoding.recordEnd(h.created, h.modified, h.zoneID, parent: links?.parent, share: links?.share, &writer)
            header = nil
        } else if let z = borrowedZone {
            encoding.recordEnd(nil, nil, z, parent: links?.parent, share: links?.share, &writer)
            borrowedZone = nil
        }
        links = nil
        guard let spool, writer.count >= AnswerWriter.spillBytes else { return }
        // Refused once, the rest of the page is thrown away as it comes: the answer is the refusal.
        if spoolFailure != nil {
            _ = writer.data
            return
        }
        do {
            try AnswerWriter.spill(&writer, to: spool)
            spilled = true
        } catch {
            spoolFailure = error
            _ = writer.data
        }
    }
}
