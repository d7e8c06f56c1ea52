import Foundation
import StratusJSON

/// Reads CloudKit Web Services request dictionaries into the model, refusing malformed shapes with
/// BAD_REQUEST that names the field at fault.
package enum WireDecoding {
    package static func zoneID(_ j: JSON?) throws(StratusError) -> ZoneID {
        guard let j, !j.isNull else { return .defaultZone }
        guard j.object != nil else { throw .badRequest("zoneID must be an object") }
        let name = try j.string("zoneName") ?? ZoneID.defaultZoneName
        try ZoneID.validate(zoneName: name)
        let owner = try j.string("ownerRecordName")
        return ZoneID(zoneName: name, ownerRecordName: owner != nil ? owner : try j.string("ownerName"))
    }

    package static func stringList(_ j: JSON?, _ what: String) throws(StratusError) -> [String]? {
        guard let j, !j.isNull else { return nil }
        guard let a = j.array else { throw .badRequest("\(what) must be an array of strings") }
        var out: [String] = []
        for x in a { guard let s = x.string else { throw .badRequest("\(what) must be an array of strings") }; out.append(s) }
        return out
    }

    package static func int(_ j: JSON?, _ what: String) throws(StratusError) -> Int? {
        guard let j, !j.isNull else { return nil }
        // A number, not a numeric string: request members are typed (field values may be strings, limits not).
        if case .string = j { throw .badRequest("'\(what)' must be an integer, not a string") }
        guard let i = j.int64, i >= Int64(Int32.min), i <= Int64(Int32.max) else { throw .badRequest("'\(what)' must be an integer") }
        return Int(i)
    }

    // MARK: values

    /// A field value `{"value": …, "type": …}`. Without a type (as many clients send), the type is inferred
    /// from the JSON: text → STRING, integer → INT64, fraction → DOUBLE, an object with latitude/longitude →
    /// LOCATION, with recordName → REFERENCE, with fileChecksum → ASSETID; arrays likewise as lists.
    package static func fieldValue(_ j: JSON, field: String,
                           timestamps: TimestampWire = .milliseconds) throws(StratusError) -> FieldValue {
        guard let o = j.object else { throw .badRequest("field '\(field)' must be an object with a value") }
        return try fieldValue(value: o["value"], type: o["type"], field: field, timestamps: timestamps)
    }

    /// A field value from its `value` and `type` members (a type that is not a string is no type).
    package static func fieldValue(value: JSON?, type: JSON?, field: String,
                           timestamps: TimestampWire = .milliseconds) throws(StratusError) -> FieldValue {
        guard let value else { throw .badRequest("field '\(field)' has no value") }
        if let t = type?.string {
            guard let type = t == "UNKNOWN_LIST" ? FieldType.list(.string) : FieldType(wireName: t) else {
                throw .badRequest("field '\(field)' has an unknown type '\(t.prefix(40))'")
            }
            if t == "UNKNOWN_LIST" {
                guard value.array?.isEmpty == true else { throw .badRequest("field '\(field)': UNKNOWN_LIST must be empty") }
                return .list(nil, [])
            }
            return try typed(value, type, field: field, timestamps: timestamps)
        }
        return try inferred(value, field: field)
    }

    package static func typed(_ v: JSON, _ type: FieldType, field: String,
                      timestamps: TimestampWire = .milliseconds) throws(StratusError) -> FieldValue {
        if type.isList {
            guard let a = v.array else { throw .badRequest("field '\(field)' is \(type.wireName) and needs an array") }
            var items: [FieldValue] = []
            items.reserveCapacity(a.count)
            for x in a { items.append(try scalar(x, type.scalar, field: field, timestamps: timestamps)) }
            return .list(type.scalar, items)
        }
        return try scalar(v, type.scalar, field: field, timestamps: timestamps)
    }

    package static func scalar(_ v: JSON, _ t: ScalarType, field: String,
                       timestamps: TimestampWire = .milliseconds) throws(StratusError) -> FieldValue {
        func bad(_ expected: String) -> StratusError { .badRequest("field '\(field)' is \(t.wireName) and needs \(expected)") }
        switch t {
        case .string:
            guard let s = v.string else { throw bad("a string") }
            return .string(s)
        case .int64:
            guard let i = v.int64 else { throw bad("an integer") }
            return .int64(i)
        case .double:
            guard let d = v.double, d.isFinite else { throw bad("a number") }
            return .double(d)
        case .timestamp:
            guard let t = timestamps.timestamp(v) else { throw bad(timestamps.expected) }
            return .timestamp(t)
        case .bytes:
            guard let s = v.string, let d = Data(base64Encoded: s) else { throw bad("base64 text") }
            return .bytes(d)
        case .reference:
            return .reference(try reference(v, field: field))
        case .location:
            return .location(try location(v, field: field))
        case .asset:
            guard let o = v.object, let checksum = o["fileChecksum"]?.string else { throw bad("an asset dictionary with fileChecksum (from assets/upload)") }
            return .asset(AssetValue(fileChecksum: checksum, size: o["size"]?.int64 ?? 0,
                                     referenceChecksum: o["referenceChecksum"]?.string,
                                     wrappingKey: o["wrappingKey"]?.string, receipt: o["receipt"]?.string))
        }
    }

    package static func reference(_ v: JSON, field: String) throws(StratusError) -> Reference {
        guard let o = v.object, let name = o["recordName"]?.string else { throw .badRequest("field '\(field)' needs a reference with a recordName") }
        var action = ReferenceAction.none
        if let a = o["action"]?.string {
            guard let parsed = ReferenceAction(rawValue: a) else { throw .badRequest("field '\(field)': unknown reference action '\(a.prefix(20))'") }
            action = parsed
        }
        let zone: ZoneID? = o["zoneID"].map { _ in (try? zoneID(o["zoneID"])) ?? .defaultZone }
        return Reference(recordName: name, zoneID: zone, action: action)
    }

    package static func location(_ v: JSON, field: String) throws(StratusError) -> Location {
        guard let o = v.object, let lat = o["latitude"]?.double, let lon = o["longitude"]?.double else {
            throw .badRequest("field '\(field)' needs a location with latitude and longitude")
        }
        return Location(latitude: lat, longitude: lon, horizontalAccuracy: o["horizontalAccuracy"]?.double,
                        verticalAccuracy: o["verticalAccuracy"]?.double,
                        altitude: o["altitude"]?.double, speed: o["speed"]?.double, course: o["course"]?.double, timestamp: o["timestamp"]?.int64)
    }

    package static func inferred(_ v: JSON, field: String) throws(StratusError) -> FieldValue {
        switch v {
        case .string(let s): return .string(s)
        case .int(let i): return .int64(i)
        case .double(let d):
            guard d.isFinite else { throw .badRequest("field '\(field)': numbers must be finite") }
            return .double(d)
        case .bool: throw .badRequest("field '\(field)': CloudKit has no boolean type; send INT64 0 or 1")
        case .null: throw .badRequest("field '\(field)' has a null value")
        case .object(let o):
            if o["latitude"] != nil { return .location(try location(v, field: field)) }
            if o["recordName"] != nil { return .reference(try reference(v, field: field)) }
            if o["fileChecksum"] != nil { return try scalar(v, .asset, field: field) }
            throw .badRequest("field '\(field)': cannot tell the type of this object; send a type")
        case .array(let a):
            if a.isEmpty { return .list(nil, []) }
            var items: [FieldValue] = []
            for x in a {
                if case .array = x { throw .badRequest("field '\(field)': lists cannot contain lists") }
                items.append(try inferred(x, field: field))
            }
            // Integers mixed with fractions form a DOUBLE list.
            if items.contains(where: { $0.scalarType == .double }) {
                items = items.map { if case .int64(let i) = $0 { .double(Double(i)) } else { $0 } }
            }
            let t = items[0].scalarType
            guard items.allSatisfy({ $0.scalarType == t }) else { throw .badRequest("field '\(field)': list items must share one type") }
            return .list(t, items)
        }
    }

    // MARK: records

    package static func record(_ j: JSON?, defaultZone: ZoneID,
                               timestamps: TimestampWire = .milliseconds) throws(StratusError) -> StoredRecord {
        guard let o = j?.object else { throw .badRequest("each operation needs a record object") }
        var decoded: [(key: String, value: FieldValue)] = []
        if let f = o["fields"], !f.isNull {
            guard let fo = f.object else { throw .badRequest("fields must be an object") }
            guard fo.count <= 1000 else { throw .badRequest("a record holds at most 1000 fields") }
            for (name, value) in fo where !Self.isRemoval(value) {
                decoded.append((name, try fieldValue(value, field: name, timestamps: timestamps)))
            }
        }
        let fields = RecordFields(decoded)
        return try record(members: JSON.object(o), fields: fields, defaultZone: defaultZone)
    }

    /// A field sent as `{"value": null}` (or `null`): the client removed it. An update removes it from the record;
    /// elsewhere it is simply absent.
    package static func isRemoval(_ field: JSON) -> Bool { field.isNull || field["value"]?.isNull == true }

    /// The names of the fields a record sends marked `"isEncrypted": true` (StratusKit's `encryptedValues`).
    package static func encryptedFields(_ j: JSON?) -> Set<String> {
        guard let fields = j?["fields"]?.object else { return [] }
        return Set(fields.filter { $0.value["isEncrypted"]?.bool == true }.keys)
    }

    /// The names of the fields a record sends as removed (see `isRemoval`).
    package static func removedFields(_ j: JSON?) -> Set<String> {
        guard let fields = j?["fields"]?.object else { return [] }
        return Set(fields.filter { isRemoval($0.value) }.keys)
    }

    /// A record from its members besides `fields` (`recordName`, `recordType`, `recordChangeTag`, `parent`) and
    /// its fields, decoded already.
    package static func record(members r: JSON, fields: RecordFields,
                       defaultZone: ZoneID) throws(StratusError) -> StoredRecord {
        var record = StoredRecord(recordName: try r.string("recordName") ?? "",
                                  recordType: try r.string("recordType") ?? "", zoneID: defaultZone,
                                  recordChangeTag: try r.string("recordChangeTag"), fields: fields)
        // `parent`: a reference to a record of the same zone; null removes it ("" below means "clear").
        if let p = r["parent"] {
            if p.isNull { record.parent = "" } else {
                guard let name = try p.string("recordName"), !name.isEmpty else { throw .badRequest("parent must be {recordName} or null") }
                record.parent = name
            }
        }
        return record
    }

    /// The zone a request's `parent` names, if it names one (the writer refuses one other than the record's).
    package static func parentZone(_ j: JSON?) throws(StratusError) -> String? {
        guard let z = j?["parent"]?["zoneID"], !z.isNull else { return nil }
        return try zoneID(z).zoneName
    }

    /// A share record's own members (`forRecord`, `publicPermission`, `participants`); nil for other records.
    package static func shareRequest(_ j: JSON?) throws(StratusError) -> ShareRequest? {
        guard let o = j?.object else { return nil }
        let isShare = o["recordType"]?.string == Share.recordType || o["forRecord"] != nil || o["participants"] != nil || o["publicPermission"] != nil
        guard isShare else { return nil }
        var request = ShareRequest()
        if let f = o["forRecord"], !f.isNull {
            guard let name = try f.string("recordName"), !name.isEmpty else { throw .badRequest("forRecord must be {recordName}") }
            request.forRecord = name
        }
        // UNKNOWN (CloudKit's, and what CloudKit JS sends for "not set") changes nothing.
        if let p = try JSON.object(o).string("publicPermission"), p != "UNKNOWN" { request.publicPermission = try SharePermission(parsing: p, "publicPermission") }
        if let list = o["participants"], !list.isNull {
            guard let items = list.array else { throw .badRequest("participants must be an array") }
            guard items.count <= 1000 else { throw .badRequest("participants: at most \(Share.maximumParticipants) per share") }
            var invitees: [ShareRequest.Invitee] = []
            for item in items {
                let info = item["userIdentity"]?["lookupInfo"] ?? item["lookupInfo"] ?? item["userIdentity"]
                let lookup: ShareRequest.Lookup
                if let e = try info?.string("emailAddress"), !e.isEmpty {
                    lookup = .emailAddress(e)
                } else if let u = try info?.string("userRecordName"), !u.isEmpty {
                    lookup = .userRecordName(u)
                } else if let u = try item["userIdentity"]?.string("userRecordName"), !u.isEmpty {
                    lookup = .userRecordName(u)
                } else {
                    throw .badRequest("each participant needs userIdentity.lookupInfo with an emailAddress or a userRecordName")
                }
                var permission = SharePermission.readOnly
                if let p = try item.string("permission"), p != "UNKNOWN" { permission = try SharePermission(parsing: p,
                        "permission") }
                // A participant's `type` and `acceptanceStatus` are the server's to set; CloudKit JS's spellings of
                // them
                // (PRIVATE_USER, PENDING) and UNKNOWN are taken with the wire's (USER, INVITED) and change nothing.
                _ = try item.string("type")
                _ = try item.string("acceptanceStatus")
                invitees.append(ShareRequest.Invitee(lookup: lookup, permission: permission))
            }
            request.participants = invitees
        }
        return request
    }

    // MARK: queries

    package static func query(_ j: JSON?, zone: ZoneID?, limit: Int, marker: String?, desiredKeys: [String]?,
                               timestamps: TimestampWire = .milliseconds) throws(StratusError) -> Query {
        guard let j, let o = j.object else { throw .badRequest("records/query needs a query object") }
        guard let type = try j.string("recordType"), !type.isEmpty else { throw .badRequest("query needs a recordType") }
        _ = o
        var filters: [QueryFilter] = []
        for f in try j.array("filterBy") ?? [] { filters.append(try filter(f, timestamps: timestamps)) }
        var sorts: [QuerySort] = []
        for s in try j.array("sortBy") ?? [] { sorts.append(try sort(s)) }
        guard filters.count <= 50, sorts.count <= 10 else { throw .badRequest("a query holds at most 50 filters and 10 sort keys") }
        return Query(recordType: type, filters: filters, sorts: sorts, zoneID: zone, resultsLimit: limit,
                     continuationMarker: marker, desiredKeys: desiredKeys)
    }

    package static func fieldRef(_ o: [String: JSON]) throws(StratusError) -> FieldRef {
        if let s = try JSON.object(o).string("systemFieldName") {
            guard let sys = SystemField(rawValue: s) ?? SystemField(schemaName: s) else { throw .badRequest("unknown systemFieldName '\(s.prefix(40))'") }
            return .system(sys)
        }
        guard let name = try JSON.object(o).string("fieldName"), !name.isEmpty else { throw .badRequest("a filter or sort needs a fieldName or systemFieldName") }
        if let sys = SystemField(schemaName: name) { return .system(sys) }
        return .field(name)
    }

    package static func filter(_ j: JSON, timestamps: TimestampWire = .milliseconds) throws(StratusError) -> QueryFilter {
        guard let o = j.object else { throw .badRequest("filterBy must hold objects") }
        guard let c = o["comparator"]?.string, let comparator = FilterComparator(rawValue: c) else {
            throw .badRequest("unknown comparator '\((o["comparator"]?.string ?? "").prefix(40))'")
        }
        let ref = try fieldRef(o)
        guard let fv = o["fieldValue"] else { throw .badRequest("a filter needs a fieldValue") }
        var value = try fieldValue(fv, field: ref.displayName, timestamps: timestamps)
        // A bare string compared with recordName is a record name.
        if case .system(.recordName) = ref, case .reference(let r) = value { value = .string(r.recordName) }
        if comparator.takesListValue, !value.isList { throw .badRequest("\(comparator.rawValue) needs a list value (a *_LIST type)") }
        return QueryFilter(ref, comparator, value, distance: try j.double("distance"))
    }

    package static func sort(_ j: JSON) throws(StratusError) -> QuerySort {
        guard let o = j.object else { throw .badRequest("sortBy must hold objects") }
        var relative: Location? = nil
        if let r = o["relativeLocation"], !r.isNull {
            relative = try location(r["value"] ?? r, field: "relativeLocation")
        }
        return QuerySort(try fieldRef(o), ascending: try j.bool("ascending") ?? true, relativeLocation: relative)
    }
}
