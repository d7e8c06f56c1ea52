import Foundation
import StratusModel
import StratusPostgres

/// Hands the rows of a record-type `SELECT` (system columns, then `fields`' main columns) to a `RecordSink`,
/// reading each column in place from the engine's current row (SQLite's statement, libpq's result): no row
/// copies, no `Data` wrapper around codec bytes, and the per-field decisions made once per statement instead of
/// once per value. This is the inner loop of query pages and change feeds (`records/query`, `changes/zone`).
struct RowStreamer {
    private enum Kind { case string, int64, timestamp, double, bytes, encoded }
    private let names: [String]
    private let kinds: [Kind]
    private let recordType: String
    /// The fields' positions in the statement's order, and sorted by name (see `RecordSink.takesFieldsInNameOrder`).
    private let inStatementOrder, inNameOrder: [Int]

    init(type: CatalogType, fields: [CatalogField]) {
        recordType = type.name
        names = fields.map { $0.name }
        inStatementOrder = Array(fields.indices)
        inNameOrder = fields.indices.sorted { fields[$0].name < fields[$1].name }
        kinds = fields.map { f in
            if f.isEncoded { return .encoded }
            switch f.type.scalar {
            case .string: return .string
            case .int64: return .int64
            case .timestamp: return .timestamp
            case .double: return .double
            default: return .bytes
            }
        }
    }

    /// The record name of a record's row.
    static func recordName(_ row: any SQLRow) -> String? { row.string(RecordColumn.recordName.position) }

    /// Streams a row of either backend. The engine's row type is resolved once here, so the column reads below
    /// are specialised for it rather than dispatched per value.
    /// `linkColumn`: where the statement's `parent` and `share` columns start (see `QueryCompiler.links`), if it has
    /// them.
    func stream(_ row: any SQLRow, zoneID: ZoneID, linkColumn: Int? = nil,
                into sink: inout some RecordSink) throws(StratusError) {
        if let r = row as? SQLiteRow { try stream(row: r, zoneID: zoneID, linkColumn: linkColumn, into: &sink) }
        else if let r = row as? PostgresRow { try stream(row: r, zoneID: zoneID, linkColumn: linkColumn, into: &sink) }
        else { throw StratusError(.internalError, "unknown row type") }
    }

    /// Streams the record that starts at column `offset` of a row of either backend (see `OffsetRow`).
    func stream(_ row: any SQLRow, from offset: Int, zoneID: ZoneID,
                into sink: inout some RecordSink) throws(StratusError) {
        if let r = row as? SQLiteRow { try stream(row: OffsetRow(base: r, offset: offset), zoneID: zoneID,
                                                  into: &sink) }
        else if let r = row as? PostgresRow { try stream(row: OffsetRow(base: r, offset: offset), zoneID: zoneID,
                                                         into: &sink) }
        else { throw StratusError(.internalError, "unknown row type") }
    }

    func stream<R: SQLRow>(row r: R, zoneID: ZoneID, linkColumn: Int? = nil,
                           into sink: inout some RecordSink) throws(StratusError) {
        typealias C = RecordColumn
        sink.beginRecord(borrowing: BorrowedRecordHeader(
            recordName: r.utf8(C.recordName.position), recordType: recordType, zoneID: zoneID, recordChangeTag: r.utf8(C.changeTag.position),
            createdTimestamp: r.int64(C.createdAt.position) ?? 0, createdBy: r.utf8(C.createdBy.position), createdDevice: r.utf8(C.createdDevice.position),
            modifiedTimestamp: r.int64(C.modifiedAt.position) ?? 0, modifiedBy: r.utf8(C.modifiedBy.position),
            modifiedDevice: r.utf8(C.modifiedDevice.position)))
        let firstField = RecordColumn.firstField
        for i in sink.takesFieldsInNameOrder ? inNameOrder : inStatementOrder {
            let column = firstField + i
            guard !r.isNull(column) else { continue }
            let value: FieldValue
            switch kinds[i] {
            case .string:
                sink.field(names[i], utf8: r.utf8(column))
                continue
            case .int64: value = .int64(r.int64(column) ?? 0)
            case .timestamp: value = .timestamp(Timestamp(secondsSinceReferenceDate: r.double(column) ?? 0))
            case .double: value = .double(r.double(column) ?? 0)
            case .bytes: value = .bytes(Data(r.blob(column)))
            case .encoded:
                guard let v = FieldValueCodec.decode(r.blob(column)) else {
                    throw StratusError(.internalError, "stored value of field '\(names[i])' is corrupt")
                }
                value = v
            }
            sink.field(names[i], value)
        }
        if let c = linkColumn, !r.isNull(c) || !r.isNull(c + 1) {
            sink.links(parent: r.string(c), share: r.string(c + 1))
        }
        sink.endRecord()
    }
}
