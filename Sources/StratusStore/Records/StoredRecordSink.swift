import Foundation
import StratusModel

/// Builds `StoredRecord`s from streamed rows, so the store's record-returning queries and change feeds decode rows
/// with the same `RowStreamer` as the API's streamed pages: one decoder, not two. A page's creator, modifier and
/// device names repeat from row to row, so each distinct one is made a `String` once and shared.
struct StoredRecordSink: RecordSink {
    private(set) var records: [StoredRecord] = []
    private var record = StoredRecord(recordName: "", recordType: "")
    private var fields: [String: FieldValue] = [:]
    private var names = RepeatedNames()

    init(capacity: Int = 0) { records.reserveCapacity(capacity) }

    mutating func beginRecord(_ header: RecordHeader) {
        record = StoredRecord(recordName: header.recordName, recordType: header.recordType, zoneID: header.zoneID,
                              recordChangeTag: header.recordChangeTag, created: header.created, modified: header.modified)
        fields = Dictionary(minimumCapacity: fields.capacity)
    }

    mutating func beginRecord(borrowing h: BorrowedRecordHeader) {
        record = StoredRecord(recordName: String(decoding: h.recordName, as: UTF8.self), recordType: h.recordType,
                              zoneID: h.zoneID,
                              recordChangeTag: String(decoding: h.recordChangeTag, as: UTF8.self),
                              created: RecordStamp(timestamp: h.createdTimestamp,
                                                   userRecordName: names.string(h.createdBy),
                                      deviceID: names.string(h.createdDevice)),
                              modified: RecordStamp(timestamp: h.modifiedTimestamp,
                                                    userRecordName: names.string(h.modifiedBy),
                                      deviceID: names.string(h.modifiedDevice)))
        fields = Dictionary(minimumCapacity: fields.capacity)
    }

    mutating func field(_ name: String, _ value: FieldValue) { fields[name] = value }

    mutating func links(parent: String?, share: String?) {
        record.parent = parent
        record.share = share
    }

    mutating func endRecord() {
        record.fields = fields
        records.append(record)
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
