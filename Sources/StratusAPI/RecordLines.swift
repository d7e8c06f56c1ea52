import Foundation
import StratusModel

/// Records as NDJSON lines, one CloudKit-shaped record object per line (what `records/lookup` answers for a
/// record, its fields in name order so that the same record always makes the same bytes): the format of
/// `stratus records export` and `import` and of the console's export and import.
public enum RecordLines {
    /// One record's line, without the newline.
    public static func encode(_ r: StoredRecord) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        let wire = WireEncoding()
        wire.recordStart(r.recordName, r.recordType, r.recordChangeTag, &w)
        for name in r.fields.keys.sorted() { wire.field(name, r.fields[name]!, &w) }
        wire.recordEnd(r.created, r.modified, r.zoneID, parent: r.parent, share: r.share, &w)
        return w.bytes
    }

    /// A record from a line: its name, type, fields, parent and zone (the zone's name; the owner is the target
    /// database's). Change tags and timestamps in the line are ignored: a write makes its own.
    public static func decode(_ line: Data) throws(StratusError) -> StoredRecord {
        let json: JSON
        do { json = try JSONParser.parse(line) } catch { throw .badRequest("the line is not JSON") }
        guard json.object != nil else { throw .badRequest("the line is not a record object") }
        let zone = try WireDecoding.zoneID(json["zoneID"])
        var record = try WireDecoding.record(json, defaultZone: ZoneID(zoneName: zone.zoneName))
        guard !record.recordName.isEmpty else { throw .badRequest("the record has no recordName") }
        guard !record.recordType.isEmpty else { throw .badRequest("the record has no recordType") }
        record.recordChangeTag = nil
        return record
    }
}
