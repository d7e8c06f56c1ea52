import StratusModel

/// Writes records as CloudKit JSON as the store reads them (a query page without building its records).
struct WireRecordSink: RecordSink {
    let encoding: WireEncoding
    var writer: JSONWriter
    private var header: RecordHeader?
    /// How many records were written.
    private(set) var records = 0

    init(encoding: WireEncoding, writer: JSONWriter) {
        self.encoding = encoding
        self.writer = writer
    }

    mutating func beginRecord(_ h: RecordHeader) {
        header = h
        records += 1
        encoding.recordStart(h.recordName, h.recordType, h.recordChangeTag, &writer)
    }

    mutating func field(_ name: String, _ value: FieldValue) { encoding.field(name, value, &writer) }

    mutating func endRecord() {
        guard let h = header else { return }
        encoding.recordEnd(h.created, h.modified, h.zoneID, &writer)
        header = nil
    }
}
