import Foundation
import StratusModel

/// Writes model values in CloudKit Web Services' response shapes.
struct WireEncoding {
    /// INT64 values as strings, for JavaScript clients that lose 64-bit precision.
    var numbersAsStrings = false
    /// How TIMESTAMP field values are written (what the request asked for).
    var timestamps = TimestampWire.milliseconds
    /// Each record type's ENCRYPTED fields: they are written marked `"isEncrypted": true`, so StratusKit reads them
    /// through `encryptedValues` only, as CloudKit's framework does.
    var encryptedFields: [String: Set<String>] = [:]
    /// Builds an asset's download URL from its checksum.
    var assetURL: @Sendable (String) -> String? = { _ in nil }

    func zoneID(_ z: ZoneID, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("zoneName", z.zoneName)
        w.field("ownerRecordName", z.ownerRecordName ?? DatabaseID.publicOwner)
        w.endObject()
    }

    func stamp(_ s: RecordStamp, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("timestamp", s.timestamp)
        w.field("userRecordName", s.userRecordName)
        w.field("deviceID", s.deviceID)
        w.endObject()
    }

    func record(_ r: StoredRecord, _ w: inout JSONWriter) {
        recordStart(r.recordName, r.recordType, r.recordChangeTag, &w)
        let encrypted = encryptedFields.isEmpty ? nil : encryptedFields[r.recordType]
        for (name, value) in r.fields { field(name, value, encrypted: encrypted?.contains(name) == true, &w) }
        recordEnd(r.created, r.modified, r.zoneID, parent: r.parent, share: r.share, &w)
    }

    /// `{"recordName":…,"recordType":…,"recordChangeTag":…,"fields":{` — a record up to its fields.
    func recordStart(_ name: String, _ type: String, _ tag: String?, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("recordName", name)
        w.field("recordType", type)
        if let tag { w.field("recordChangeTag", tag) }
        w.key("fields")
        w.beginObject()
    }

    /// `recordStart` for a header whose text is borrowed from storage; the stamps come ahead of the fields
    /// (key order means nothing in JSON), so nothing borrowed has to outlive this call.
    func recordStart(borrowing h: BorrowedRecordHeader, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("recordName", utf8: h.recordName)
        w.field("recordType", h.recordType)
        w.field("recordChangeTag", utf8: h.recordChangeTag)
        w.key("created"); stamp(h.createdTimestamp, h.createdBy, h.createdDevice, &w)
        w.key("modified"); stamp(h.modifiedTimestamp, h.modifiedBy, h.modifiedDevice, &w)
        w.key("fields")
        w.beginObject()
    }

    private func stamp(_ timestamp: Int64, _ user: UnsafeBufferPointer<UInt8>, _ device: UnsafeBufferPointer<UInt8>,
                       _ w: inout JSONWriter) {
        w.beginObject()
        w.field("timestamp", timestamp)
        w.field("userRecordName", utf8: user)
        w.field("deviceID", utf8: device)
        w.endObject()
    }

    func field(_ name: String, _ value: FieldValue, encrypted: Bool = false, _ w: inout JSONWriter) {
        w.key(name)
        w.beginObject()
        w.key("value")
        self.value(value, &w)
        WireEncoding.writeType(value, &w)
        if encrypted { w.field("isEncrypted", true) }
        w.endObject()
    }

    /// Closes the fields and writes the rest of the record.
    func recordEnd(_ created: RecordStamp?, _ modified: RecordStamp?, _ zone: ZoneID, parent: String? = nil,
                   share: String? = nil, _ w: inout JSONWriter) {
        w.endObject()
        if let c = created { w.key("created"); stamp(c, &w) }
        if let m = modified { w.key("modified"); stamp(m, &w) }
        // The sharing system fields, as references (`parent` within the zone, `share` to the share record).
        if let parent { w.key("parent"); w.beginObject(); w.field("recordName", parent); w.endObject() }
        if let share {
            w.key("share"); w.beginObject(); w.field("recordName", share); w.key("zoneID"); zoneID(zone,
                    &w); w.endObject()
        }
        w.field("deleted", false)
        w.key("zoneID")
        zoneID(zone, &w)
        w.endObject()
    }

    /// `"type":"…"` for a value, without a dictionary lookup: the common scalar types are static text.
    static func writeType(_ v: FieldValue, _ w: inout JSONWriter) {
        switch v {
        case .list(let t, _): w.field("type", t.map { typeNames($0).list } ?? "UNKNOWN_LIST")
        default: if let t = v.scalarType { w.field("type", typeNames(t).value) }
        }
    }

    /// A scalar type's wire names, of a value and of a list of them.
    static func typeNames(_ t: ScalarType) -> (value: StaticString, list: StaticString) {
        switch t {
        case .string: ("STRING", "STRING_LIST")
        case .int64: ("INT64", "INT64_LIST")
        case .double: ("DOUBLE", "DOUBLE_LIST")
        case .timestamp: ("TIMESTAMP", "TIMESTAMP_LIST")
        case .bytes: ("BYTES", "BYTES_LIST")
        case .reference: ("REFERENCE", "REFERENCE_LIST")
        case .location: ("LOCATION", "LOCATION_LIST")
        case .asset: ("ASSETID", "ASSETID_LIST")
        }
    }

    func deletedRecord(_ name: String, zone: ZoneID, recordType: String? = nil, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("recordName", name)
        // Not in CloudKit Web Services' archived reference, but what its framework reports with a deletion.
        if let recordType, !recordType.isEmpty { w.field("recordType", recordType) }
        w.field("deleted", true)
        w.key("zoneID")
        zoneID(zone, &w)
        w.endObject()
    }

    func value(_ v: FieldValue, _ w: inout JSONWriter) {
        switch v {
        case .string(let s): w.string(s)
        case .int64(let i): if numbersAsStrings { w.string(String(i)) } else { w.int(i) }
        case .double(let d): w.double(d)
        case .timestamp(let t): timestamps.write(t, &w)
        case .bytes(let b): w.base64(b)
        case .reference(let r):
            w.beginObject()
            w.field("recordName", r.recordName)
            w.field("action", r.action.rawValue)
            if let z = r.zoneID { w.key("zoneID"); zoneID(z, &w) }
            w.endObject()
        case .asset(let a):
            w.beginObject()
            w.field("fileChecksum", a.fileChecksum)
            w.field("size", a.size)
            if let rc = a.referenceChecksum { w.field("referenceChecksum", rc) }
            if let wk = a.wrappingKey { w.field("wrappingKey", wk) }
            if let url = assetURL(a.fileChecksum) { w.field("downloadURL", url) }
            w.endObject()
        case .location(let l):
            w.beginObject()
            w.key("latitude"); w.double(l.latitude)
            w.key("longitude"); w.double(l.longitude)
            if let x = l.horizontalAccuracy { w.key("horizontalAccuracy"); w.double(x) }
            if let x = l.verticalAccuracy { w.key("verticalAccuracy"); w.double(x) }
            if let x = l.altitude { w.key("altitude"); w.double(x) }
            if let x = l.speed { w.key("speed"); w.double(x) }
            if let x = l.course { w.key("course"); w.double(x) }
            if let x = l.timestamp { w.field("timestamp", x) }
            w.endObject()
        case .list(_, let items):
            w.beginArray()
            for i in items { value(i, &w) }
            w.endArray()
        }
    }

    /// A per-item error inside a result array, as CloudKit writes it: what it concerns (the record or zone the
    /// error names, or what `identity` writes, such as a subscription ID), the reason (an internal error's detail is
    /// logged and never sent), the code and a uuid. Every per-item error of the API is written here.
    func error(_ e: StratusError, _ w: inout JSONWriter, identity: (inout JSONWriter) -> Void = { _ in }) {
        w.beginObject()
        identity(&w)
        if let name = e.recordName { w.field("recordName", name) }
        if let z = e.zoneID { w.key("zoneID"); zoneID(z, &w) }
        let uuid = UUID().uuidString.lowercased()
        w.field("reason", ErrorEnvelope.publicReason(e, uuid: uuid))
        w.field("serverErrorCode", e.code.rawValue)
        if let r = e.retryAfter { w.field("retryAfter", Int64(r)) }
        if e.userDidResetEncryptedData { w.field("userDidResetEncryptedData", true) }
        w.field("uuid", uuid)
        if let server = e.serverRecord { w.key("serverRecord"); record(server, &w) }
        w.endObject()
    }

    func zone(_ z: RecordZone, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("zoneID")
        zoneID(z.zoneID, &w)
        w.field("syncToken", z.syncToken)
        w.field("atomic", z.atomic)
        if let share = z.share {
            w.key("share"); w.beginObject(); w.field("recordName", share); w.key("zoneID"); zoneID(z.zoneID,
                    &w); w.endObject()
        }
        w.endObject()
    }
}
