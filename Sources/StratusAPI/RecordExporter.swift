import Foundation
import StratusModel
import StratusStore

/// Streams every record of a database (or one zone, or one type) as NDJSON lines or CSV, zone by zone: NDJSON type
/// by type in record-name order straight from the type tables (one snapshot), CSV and the shared database from the
/// change log a page at a time. Memory stays constant whatever the number of records, and exporting what an import
/// loaded gives the same lines back.
public struct RecordExporter {
    public enum Format: String, Sendable, CaseIterable { case ndjson, csv }

    let env: EnvironmentStore
    let database: DatabaseID
    let zone, type: String?
    let format: Format
    /// Whether ENCRYPTED fields' values are written (off unless asked: they are the app's secret).
    let includeEncrypted: Bool

    public init(env: EnvironmentStore, database: DatabaseID, zone: String? = nil, type: String? = nil,
                format: Format = .ndjson, includeEncrypted: Bool = false) {
        self.includeEncrypted = includeEncrypted
        self.env = env
        self.database = database
        self.zone = zone
        self.type = type
        self.format = format
    }

    /// Writes the records through `write` (called with about 1 MB at a time); returns how many it wrote.
    @discardableResult
    public func run(_ write: (Data) throws -> Void) throws -> Int {
        var columns: [String] = []
        if format == .csv {
            guard let type else { throw StratusError.badRequest("CSV export needs --type: its columns are that record type's fields") }
            guard let t = try env.schema.current().recordTypes.first(where: { $0.name == type }) else {
                throw StratusError.badRequest("record type '\(type.prefix(100))' does not exist")
            }
            columns = t.fields.filter { includeEncrypted || !$0.type.encrypted }.map(\.name).filter { !$0.hasPrefix("___") }
        }
        var out = Data()
        out.reserveCapacity(1 << 20)
        if format == .csv { out.append(contentsOf: Array((["recordName",
                                                           "zoneName"] + columns).map(CSVCell.escape).joined(separator: ",").utf8) + [0x0A]) }
        let zones: [ZoneID]
        if let zone {
            zones = [ZoneID(zoneName: zone,
                            ownerRecordName: database.scope == .public ? nil : database.ownerRecordName)]
        } else {
            zones = try env.zones.all(in: database).map(\.zoneID)
        }
        var count = 0
        // NDJSON of a public or private database: streamed from the type tables (see `EnvironmentStore.streamRecords`).
        if format == .ndjson && database.scope != .shared {
            try withoutActuallyEscaping(write) { write in
                var sink = RecordLineSink(write: write)
                for zoneID in zones { count += try env.records.streamRecords(in: database, zoneID: zoneID, type: type,
                        includeEncrypted: includeEncrypted, into: &sink) }
                try sink.finish()
            }
            return count
        }
        let schema = includeEncrypted ? nil : try env.schema.current()
        for zoneID in zones {
            var token: String?
            repeat {
                let page = try env.zones.zoneChanges(in: database, zoneID: zoneID, since: token)
                for var r in page.changed where type == nil || r.recordType == type {
                    if let hidden = schema?.recordType(named: r.recordType)?.fields.filter({ $0.type.encrypted }) {
                        for f in hidden { r.fields.removeValue(forKey: f.name) }
                    }
                    if format == .ndjson {
                        out.append(contentsOf: RecordLines.encode(r))
                    } else {
                        let cells = [r.recordName,
                                     r.zoneID.zoneName] + columns.map { r.fields[$0].map(Self.csvText) ?? "" }
                        out.append(contentsOf: Array(cells.map(CSVCell.escape).joined(separator: ",").utf8))
                    }
                    out.append(0x0A)
                    count += 1
                }
                if out.count >= 1 << 20 { try write(out); out.removeAll(keepingCapacity: true) }
                token = page.syncToken
                if !page.moreComing { break }
            } while true
        }
        if !out.isEmpty { try write(out) }
        return count
    }

    /// A value as one CSV cell's text: scalars as text, the rest as their CloudKit JSON value.
    static func csvText(_ v: FieldValue) -> String {
        switch v {
        case .string(let s): return s
        case .int64(let i): return String(i)
        case .double(let d): return String(d)
        case .timestamp(let t): return String(t.millisSince1970)
        case .reference(let r): return r.recordName
        case .bytes(let b): return b.base64EncodedString()
        default:
            var w = JSONWriter(capacity: 128)
            WireEncoding().value(v, &w)
            return String(decoding: w.bytes, as: UTF8.self)
        }
    }
}
