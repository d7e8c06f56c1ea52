import Foundation
import StratusModel

/// Builds `StoredRecord`s from streamed rows, so the store's record-returning queries and change feeds decode rows
/// with the same `RowStreamer` as the API's streamed pages: one decoder, not two. A page's creator, modifier and
/// device names repeat from row to row, so each distinct one is made a `String` once and shared.
struct StoredRecordSink: RecordSink {
    /// The records built, the last one still being built between `beginRecord` and `endRecord`: it is filled in
    /// place, so no record is copied (each copy retained, and later released, every string it holds).
    private(set) var records: [StoredRecord] = []
    /// The fields of the record being built, moved into it when it ends.
    private var fields = RecordFields()
    /// The most fields a record of this page had so far: each next record's fields are sized for as many at once.
    private var widest = 0
    private var names = RepeatedNames()

    init(capacity: Int = 0) { records.reserveCapacity(capacity) }

    var takesFieldsInNameOrder: Bool { true }

    mutating func beginRecord(_ header: RecordHeader) {
        records.append(StoredRecord(recordName: header.recordName, recordType: header.recordType, zoneID: header.zoneID,
                                    recordChangeTag: header.recordChangeTag, created: header.created,
                                    modified: header.modified))
        fields = RecordFields(minimumCapacity: widest)
    }

    mutating func beginRecord(borrowing h: BorrowedRecordHeader) {
        records.append(StoredRecord(recordName: String(decoding: h.recordName, as: UTF8.self), recordType: h.recordType,
                                    zoneID: h.zoneID,
                                    recordChangeTag: String(decoding: h.recordChangeTag, as: UTF8.self),
                                    created: RecordStamp(timestamp: h.createdTimestamp,
                                                         userRecordName: names.string(h.createdBy),
                                                         deviceID: names.string(h.createdDevice)),
                                    modified: RecordStamp(timestamp: h.modifiedTimestamp,
                                                          userRecordName: names.string(h.modifiedBy),
                                                          deviceID: names.string(h.modifiedDevice))))
        fields = RecordFields(minimumCapacity: widest)
    }

    mutating func field(_ name: String, _ value: FieldValue) { fields[name] = value }

    mutating func links(parent: String?, share: String?) {
        records[records.count - 1].parent = parent
        records[records.count - 1].share = share
    }

    mutating func endRecord() {
        widest = max(widest, fields.count)
        swap(&records[records.count - 1].fields, &fields)
    }

    /// Removes and returns the record last built, for callers that file records as they come.
    mutating func takeLast() -> StoredRecord { records.removeLast() }

    /// The few user and device names a page repeats: a short list searched by bytes.
    private struct RepeatedNames {
        private var seen: [(bytes: [UInt8], string: String)] = []

        mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) -> String {
            for entry in seen where entry.bytes.count == utf8.count {
                // memcmp: the generic elementsEqual walked the bytes one by one.
                let same = utf8.isEmpty || entry.bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!,
                        utf8.baseAddress!, utf8.count) == 0 }
                if same { return entry.string }
            }
            let s = String(decoding: utf8, as: UTF8.self)
            if seen.count < 8 { seen.append((Array(utf8), s)) }
            return s
        }
    }
}
