import StratusModel
import StratusTemplates

/// A record in the console's JSON variants and exports, in CloudKit's wire shapes (`value` and `type` per field).
struct RecordJSON: Encodable {
    struct Zone: Encodable { let zoneName: String }
    struct Stamp: Encodable {
        let timestamp: Int64
        let userRecordName, deviceID: String
        init(_ s: RecordStamp) { (timestamp, userRecordName, deviceID) = (s.timestamp, s.userRecordName, s.deviceID) }
    }
    struct Field: Encodable { let value: WireValue; let type: String }
    let recordName, recordType: String
    let zoneID: Zone
    let recordChangeTag: String?
    let fields: [String: Field]
    let created, modified: Stamp?

    init(_ r: StoredRecord) {
        recordName = r.recordName
        recordType = r.recordType
        zoneID = Zone(zoneName: r.zoneID.zoneName)
        recordChangeTag = r.recordChangeTag
        fields = Dictionary(uniqueKeysWithValues: r.fields.map { name, value in
            (name, Field(value: WireValue(value), type: ValueDisplay.typeName(value)))
        })
        created = r.created.map(Stamp.init)
        modified = r.modified.map(Stamp.init)
    }
}

/// One value as CloudKit writes it: numbers, text, base64 bytes, reference/asset/location objects, lists.
struct WireValue: Encodable {
    let value: FieldValue
    init(_ value: FieldValue) { self.value = value }

    private struct ZoneName: Encodable { let zoneName: String }
    private struct Reference: Encodable { let recordName, action: String; let zoneID: ZoneName? }
    private struct Asset: Encodable { let fileChecksum: String; let size: Int64 }
    private struct Location: Encodable { let latitude, longitude: Double }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch value {
        case .string(let s): try c.encode(s)
        case .int64(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .timestamp(let t): try c.encode(t.millisSince1970)
        case .bytes(let d): try c.encode(d.base64EncodedString())
        case .reference(let r):
            try c.encode(Reference(recordName: r.recordName, action: r.action == .deleteSelf ? "DELETE_SELF" : "NONE",
                                   zoneID: r.zoneID.map { ZoneName(zoneName: $0.zoneName) }))
        case .asset(let a): try c.encode(Asset(fileChecksum: a.fileChecksum, size: a.size))
        case .location(let l): try c.encode(Location(latitude: l.latitude, longitude: l.longitude))
        case .list(_, let items): try c.encode(items.map(WireValue.init))
        }
    }
}

/// A value, or `false` when there is none: for template names that must not be looked up in an outer context
/// when a value lacks them (a list item inside a record's page must not show the page's `zone`).
struct OrFalse<Value: Encodable>: Encodable, TemplateRepresentable {
    let value: Value?
    init(_ value: Value?) { self.value = value }

    var templateValue: TemplateValue { value.flatMap { TemplateValue.of($0) } ?? .bool(false) }

    func encode(to encoder: any Encoder) throws {
        if let value { try value.encode(to: encoder) } else { var c = encoder.singleValueContainer(); try c.encode(false) }
    }
}
