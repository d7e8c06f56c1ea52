import Foundation
import StratusModel

/// Takes every value of every record it is handed (text by its bytes, other values decoded), keeping none: what
/// an API page does with a row before it encodes it, without the encoding.
struct ReadingSink: RecordSink {
    var records = 0
    var bytes = 0
    mutating func beginRecord(_ header: RecordHeader) { bytes += header.recordName.utf8.count }
    mutating func beginRecord(borrowing header: BorrowedRecordHeader) { bytes += 1 }
    mutating func field(_ name: String,
                        _ value: FieldValue) { if case .bytes(let d) = value { bytes += d.count } else { bytes += 1 } }
    mutating func field(_ name: String, utf8: UnsafeBufferPointer<UInt8>) { bytes += utf8.count }
    mutating func endRecord() { records += 1 }
}
