import Foundation
import StratusModel

/// CSV as `stratus records export --format csv` writes it, read back into records of one type: a header of
/// `recordName`, optionally `zoneName`, then one column per field of the type; a cell as the exporter writes it
/// (scalars as text, a reference as its record name, bytes as base64, lists, locations and assets as their
/// CloudKit JSON value); an empty cell is a field left unset. RFC 4180 quoting, so a cell may hold line breaks, and
/// one leading `'` taken off (see `CSVCell`: the exporter's guard against spreadsheet formulas).
public struct RecordCSV {
    let type: RecordTypeSchema
    let columns: [String]
    let fields: [FieldSchema?]

    /// Checks the header against the type: every column must be one of its fields, none twice.
    public init(header: [String], type: RecordTypeSchema) throws(StratusError) {
        guard header.first == "recordName" else { throw .badRequest("the header's first column must be recordName") }
        var seen: Set<String> = []
        var fields: [FieldSchema?] = []
        for (i, name) in header.enumerated() {
            guard seen.insert(name).inserted else { throw .badRequest("the header names column '\(name.prefix(60))' twice") }
            if i == 0 || (i == 1 && name == "zoneName") { fields.append(nil); continue }
            guard let f = type.field(named: name), !f.isSystem else {
                throw .badRequest("column '\(name.prefix(60))' is not a field of \(type.name) (its fields: \(type.userFields.map(\.name).joined(separator: ", ")))")
            }
            fields.append(f)
        }
        self.type = type
        self.columns = header
        self.fields = fields
    }

    /// The record of one row.
    public func record(_ cells: [String]) throws(StratusError) -> StoredRecord {
        guard cells.count == columns.count else { throw .badRequest("the row has \(cells.count) cells; the header has \(columns.count)") }
        guard !cells[0].isEmpty else { throw .badRequest("the row has no recordName") }
        let cells = cells.map(CSVCell.unescape)
        var record = StoredRecord(recordName: cells[0], recordType: type.name)
        if columns.count > 1 && columns[1] == "zoneName" && !cells[1].isEmpty { record.zoneID = ZoneID(zoneName: cells[1]) }
        for (i, cell) in cells.enumerated() where !cell.isEmpty {
            guard let f = fields[i] else { continue }
            record.fields[f.name] = try Self.value(cell, f)
        }
        return record
    }

    static func value(_ cell: String, _ f: FieldSchema) throws(StratusError) -> FieldValue {
        func bad(_ expected: String) -> StratusError { .badRequest("column '\(f.name)' is \(f.type.wireName) and needs \(expected), not '\(cell.prefix(40))'") }
        if !f.type.isList {
            switch f.type.scalar {
            case .string: return .string(cell)
            case .int64:
                guard let i = Int64(cell) else { throw bad("an integer") }
                return .int64(i)
            case .double:
                guard let d = Double(cell), d.isFinite else { throw bad("a number") }
                return .double(d)
            case .timestamp:
                guard let i = Int64(cell), Timestamp.validMillis.contains(i) else { throw bad("whole milliseconds") }
                return .timestamp(Timestamp(millisSince1970: i))
            case .reference:
                if !cell.hasPrefix("{") { return .reference(Reference(recordName: cell)) }
            case .bytes:
                guard let d = Data(base64Encoded: cell) else { throw bad("base64 text") }
                return .bytes(d)
            case .location, .asset: break
            }
        }
        let json: JSON
        do { json = try JSONParser.parse(Data(cell.utf8)) } catch { throw bad("its CloudKit JSON value") }
        return try WireDecoding.typed(json, f.type, field: f.name)
    }

    /// The cells of one CSV row, or nil while a quoted cell is still open (the row goes on on the next line).
    public static func cells(_ row: [UInt8]) -> [String]? {
        var cells: [String] = []
        var cell: [UInt8] = []
        var quoted = false, i = 0
        while i < row.count {
            let b = row[i]
            if quoted {
                if b == 0x22 {
                    if i + 1 < row.count && row[i + 1] == 0x22 { cell.append(0x22); i += 1 } else { quoted = false }
                } else { cell.append(b) }
            } else if b == 0x22 && cell.isEmpty {
                quoted = true
            } else if b == 0x2C {
                cells.append(String(decoding: cell, as: UTF8.self))
                cell.removeAll(keepingCapacity: true)
            } else if b != 0x0D || i != row.count - 1 {
                cell.append(b)
            }
            i += 1
        }
        if quoted { return nil }
        cells.append(String(decoding: cell, as: UTF8.self))
        return cells
    }
}
