import Foundation
import StratusModel

/// Writes records as NDJSON lines while the store reads them (`EnvironmentStore.streamRecords`): the CloudKit JSON
/// of `WireRecordSink`, a newline after each record, handed to `write` about 1 MB at a time. A failed write stops
/// the writing; `finish` reports it.
struct RecordLineSink: RecordSink {
    private var wire = WireRecordSink(encoding: WireEncoding(), writer: JSONWriter(capacity: 1 << 20 + 64 * 1024))
    private let write: (Data) throws -> Void
    private var failure: (any Error)?

    init(write: @escaping (Data) throws -> Void) { self.write = write }

    mutating func beginRecord(_ h: RecordHeader) { wire.beginRecord(h) }
    mutating func beginRecord(borrowing h: BorrowedRecordHeader) { wire.beginRecord(borrowing: h) }
    mutating func field(_ name: String, _ value: FieldValue) { wire.field(name, value) }
    mutating func field(_ name: String, utf8: UnsafeBufferPointer<UInt8>) { wire.field(name, utf8: utf8) }
    mutating func links(parent: String?, share: String?) { wire.links(parent: parent, share: share) }

    mutating func endRecord() {
        wire.endRecord()
        wire.writer.endLine()
        if wire.writer.count >= 1 << 20 { flush() }
    }

    private mutating func flush() {
        guard failure == nil, wire.writer.count > 0 else { return }
        do { try write(wire.writer.data) } catch { failure = error }
    }

    /// Writes what is left; throws the first write's failure.
    mutating func finish() throws {
        flush()
        if let failure { throw failure }
    }
}
