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
    ///
    /// Read member by member rather than parsed into a `JSON` tree first: decoding is most of an import's work
    /// besides the writing, and the tree's dictionaries (one per field value, the timestamps', the zone's) were
    /// most of the decoding. What is refused, and with which message, is what the tree's reading refuses: a line
    /// that is not JSON says so before anything else is judged.
    public static func decode(_ line: Data) throws(StratusError) -> StoredRecord {
        let read: Result<Result<StoredRecord, StratusError>, JSONParser.Failure> = line.withUnsafeBytes { raw in
            var p = JSONParser(raw.bindMemory(to: UInt8.self))
            return Result { () throws(JSONParser.Failure) in try p.recordLine() }
        }
        guard case .success(let decoded) = read else { throw .badRequest("the line is not JSON") }
        var record = try decoded.get()
        guard !record.recordName.isEmpty else { throw .badRequest("the record has no recordName") }
        guard !record.recordType.isEmpty else { throw .badRequest("the record has no recordType") }
        record.recordChangeTag = nil
        return record
    }
}

private extension JSONParser {
    /// Reads a whole line: a syntax error throws; a line that is JSON but not a good record is the failure inside.
    mutating func recordLine() throws(Failure) -> Result<StoredRecord, StratusError> {
        guard openObject() else {
            _ = try value(depth: 0)
            try end()
            return .failure(.badRequest("the line is not a record object"))
        }
        // The members `WireDecoding.record` reads besides the fields; everything else (timestamps, change tag's
        // neighbours) is skipped unbuilt.
        // Sized ahead: growing a dictionary a member at a time rehashed it four times a record.
        var members: [String: JSON] = Dictionary(minimumCapacity: 8)
        var fields: [String: FieldValue] = Dictionary(minimumCapacity: 16)
        var fieldErrors: [String: StratusError] = [:]
        var fieldsProblem: StratusError?
        var first = true
        while let key = try nextKey(first: &first) {
            switch key {
            case "recordName", "recordType", "recordChangeTag", "zoneID", "parent":
                members[key] = try value(depth: 1)
            case "fields":
                // A repeated member replaces the earlier one, as in a parsed object.
                fields.removeAll(keepingCapacity: true)
                fieldErrors = [:]
                fieldsProblem = nil
                if try takeNull() { continue }
                fieldsProblem = try fieldsObject(&fields, errors: &fieldErrors)
            default:
                try skip(depth: 1)
            }
        }
        try end()
        // Judged in the order `WireDecoding.record` judges a parsed line.
        return Result { () throws(StratusError) in
            let zone = try WireDecoding.zoneID(members["zoneID"])
            if let fieldsProblem { throw fieldsProblem }
            guard fields.count + fieldErrors.count <= 1000 else { throw .badRequest("a record holds at most 1000 fields") }
            if let e = fieldErrors.first?.value { throw e }
            return try WireDecoding.record(members: .object(members), fields: RecordFields(fields),
                                           defaultZone: ZoneID(zoneName: zone.zoneName))
        }
    }

    /// Reads a record's `fields` object into `fields` (each good field) and `errors` (each bad one, by name);
    /// returns the problem when `fields` is not an object at all.
    mutating func fieldsObject(_ fields: inout [String: FieldValue],
                               errors fieldErrors: inout [String: StratusError]) throws(Failure) -> StratusError? {
        guard openObject() else {
            try skip(depth: 1)
            return .badRequest("fields must be an object")
        }
        var firstField = true
        while let name = try nextKey(first: &firstField) {
            guard openObject() else {
                try skip(depth: 2)
                fieldErrors[name] = .badRequest("field '\(name)' must be an object with a value")
                fields[name] = nil
                continue
            }
            var value: JSON?, type: JSON?
            var firstMember = true
            while let member = try nextKey(first: &firstMember) {
                switch member {
                case "value": value = try self.value(depth: 3)
                case "type": type = try self.value(depth: 3)
                default: try skip(depth: 3)
                }
            }
            do {
                fields[name] = try WireDecoding.fieldValue(value: value, type: type, field: name)
                if !fieldErrors.isEmpty { fieldErrors[name] = nil }
            } catch {
                fieldErrors[name] = error
                fields[name] = nil
            }
        }
        return nil
    }
}
