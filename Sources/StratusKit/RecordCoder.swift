import Foundation
import StratusJSON
#if canImport(CoreLocation)
import CoreLocation
#endif

/// CloudKit Web Services' record dictionaries to `CKRecord`s and back (see the reference's "Record" and
/// "Field type values"). Zone owners: the caller's own zones come back as `CKCurrentUserDefaultName` (the private
/// and public databases hold nothing else), zones in the shared database keep their owner's name.
enum RecordCoder {
    /// How TIMESTAMP values are spelled. StratusKit asks the server for `Date`'s own seconds since 2001 on every
    /// request (`X-Stratus-Timestamps: reference-seconds`), so that a saved `Date` comes back `==`; subscriptions
    /// and archives written by earlier versions hold Web Services' milliseconds since 1970.
    enum Dates { case referenceSeconds, milliseconds }

    /// The request header that asks for `Dates.referenceSeconds`, and its value.
    static let datesHeader = ("X-Stratus-Timestamps", "reference-seconds")

    static func date(_ n: Double, _ dates: Dates) -> Date {
        switch dates {
        case .referenceSeconds: Date(timeIntervalSinceReferenceDate: n)
        case .milliseconds: Date(timeIntervalSince1970: n / 1000)
        }
    }

    /// Query filters with their TIMESTAMP values in milliseconds, as subscriptions keep them (their predicates
    /// compare to the millisecond).
    static func inMilliseconds(_ filters: [WireObject]) -> [WireObject] {
        filters.map { f in
            guard var v = f["fieldValue"]?.object, let type = v["type"]?.string, type.hasPrefix("TIMESTAMP") else { return f }
            func ms(_ x: JSON) -> JSON { x.number.map { .int(Int64((date($0,
                    .referenceSeconds).timeIntervalSince1970 * 1000).rounded())) } ?? x }
            if let items = v["value"]?.array { v["value"] = .array(items.map(ms)) } else if let x = v["value"] { v["value"] = ms(x) }
            var out = f
            out["fieldValue"] = .object(v)
            return out
        }
    }

    // MARK: Reading

    static func zoneID(_ j: JSON?, scope: CKDatabase.Scope) -> CKRecordZone.ID {
        guard let o = j?.object else { return .default }
        let name = o["zoneName"]?.string ?? CKRecordZone.ID.defaultZoneName
        let owner = scope == .shared ? (o["ownerRecordName"]?.string ?? CKCurrentUserDefaultName) : CKCurrentUserDefaultName
        return CKRecordZone.ID(zoneName: name, ownerName: owner)
    }

    static func userID(_ j: JSON?) -> CKRecord.ID? {
        guard let o = j?.object, let u = o["userRecordName"]?.string else { return nil }
        return CKRecord.ID(recordName: u)
    }

    static func date(_ j: JSON?) -> Date? {
        guard let t = j?["timestamp"]?.number else { return nil }
        return Date(timeIntervalSince1970: t / 1000)
    }

    /// A record dictionary from the server; nil for anything that is not one (an error, a deletion).
    static func record(_ j: WireObject, scope: CKDatabase.Scope, zoneID defaultZone: CKRecordZone.ID,
                       assets: AssetDownloads?) -> CKRecord? {
        guard let name = j["recordName"]?.string, let type = j["recordType"]?.string else { return nil }
        let zone = j["zoneID"] != nil ? zoneID(j["zoneID"], scope: scope) : defaultZone
        let id = CKRecord.ID(recordName: name, zoneID: zone)
        let r: CKRecord = type == CKRecord.SystemType.share ? CKShare(decodedID: id) : CKRecord(recordType: type,
                recordID: id)
        r.recordChangeTag = j["recordChangeTag"]?.string
        r.creationDate = date(j["created"])
        r.modificationDate = date(j["modified"])
        r.creatorUserRecordID = userID(j["created"])
        r.lastModifiedUserRecordID = userID(j["modified"])
        if let p = j["parent"]?.object, let pn = p["recordName"]?.string {
            r.parent = CKRecord.Reference(recordID: CKRecord.ID(recordName: pn, zoneID: zone), action: .none)
        }
        if let s = j["share"]?.object, let sn = s["recordName"]?.string {
            r.share = CKRecord.Reference(recordID: CKRecord.ID(recordName: sn,
                                                               zoneID: s["zoneID"] != nil ? zoneID(s["zoneID"],
                    scope: scope) : zone), action: .none)
        }
        if let fields = j["fields"]?.object { readFields(fields, into: r, zoneID: zone, scope: scope, assets: assets) }
        if let share = r as? CKShare { share.readShare(j, scope: scope) }
        r.markSaved()
        return r
    }

    static func readFields(_ fields: WireObject, into r: CKRecord, zoneID: CKRecordZone.ID,
                           scope: CKDatabase.Scope = .private, assets: AssetDownloads?,
                           dates: Dates = .referenceSeconds) {
        r.values.reserveCapacity(fields.count)
        for (key, f) in fields {
            guard let f = f.object, let raw = f["value"] else { continue }
            if let v = value(raw, type: f["type"]?.string, zoneID: zoneID, scope: scope, assets: assets, dates: dates) {
                r.values[key] = v
                // An ENCRYPTED field is read through `encryptedValues` only, as with CloudKit.
                if f["isEncrypted"]?.bool == true { r.encryptedKeys.insert(key) } else if !r.encryptedKeys.isEmpty { r.encryptedKeys.remove(key) }
            }
        }
    }

    static func value(_ raw: JSON, type: String?, zoneID: CKRecordZone.ID, scope: CKDatabase.Scope,
                      assets: AssetDownloads?,
                      dates: Dates = .referenceSeconds) -> (any CKRecordValueProtocol)? {
        if let type, type.hasSuffix("_LIST") {
            guard let items = raw.array else { return nil }
            let element = String(type.dropLast(5))
            return items.compactMap { value($0, type: element == "UNKNOWN" ? nil : element, zoneID: zoneID,
                                            scope: scope, assets: assets, dates: dates) }
        }
        switch type {
        case "STRING": return raw.string
        case "INT64":
            guard let i = raw.int64 else { return nil }
            // 0 and 1 read as Bool as well as Int, as an INT64 does through CloudKit's NSNumber.
            return i == 0 || i == 1 ? NSNumber(value: i == 1) : NSNumber(value: i)
        case "DOUBLE":
            guard let d = raw.double else { return nil }
            return NSNumber(value: d)
        case "TIMESTAMP":
            guard let n = raw.number else { return nil }
            return date(n, dates)
        case "BYTES":
            return raw.string.flatMap { Data(base64Encoded: $0) }
        case "REFERENCE":
            guard let o = raw.object, let name = o["recordName"]?.string else { return nil }
            let z = o["zoneID"] != nil ? RecordCoder.zoneID(o["zoneID"], scope: scope) : zoneID
            return CKRecord.Reference(recordID: CKRecord.ID(recordName: name, zoneID: z),
                                      action: (o["action"]?.string) == "DELETE_SELF" ? .deleteSelf : .none)
        case "LOCATION":
            guard let o = raw.object, let lat = o["latitude"]?.number, let lon = o["longitude"]?.number else { return nil }
            func d(_ k: String, _ dflt: Double) -> Double { o[k]?.number ?? dflt }
            let timestamp = Date(timeIntervalSince1970: d("timestamp", 0) / 1000)
            return CLLocation(coordinate: CLLocationCoordinate2D(latitude: lat, longitude: lon), altitude: d("altitude",
                    0),
                              horizontalAccuracy: d("horizontalAccuracy", 0), verticalAccuracy: d("verticalAccuracy",
                                      -1),
                              course: d("course", -1), speed: d("speed", -1), timestamp: timestamp)
        case "ASSETID", "ASSET":
            guard let o = raw.object else { return nil }
            let local = assets?.localFile(for: o)
            return CKAsset(fileURL: local, receipt: o)
        default:
            // No type: read the JSON as it is.
            switch raw {
            case .string(let s): return s
            case .int(let i): return NSNumber(value: i)
            case .double(let d): return NSNumber(value: d)
            case .array(let items): return items.compactMap { value($0, type: nil, zoneID: zoneID, scope: scope,
                                                                    assets: assets, dates: dates) }
            default: return nil
            }
        }
    }

    // MARK: Writing

    static func zoneJSON(_ z: CKRecordZone.ID) -> WireObject {
        var o: WireObject = ["zoneName": .string(z.zoneName)]
        if z.ownerName != CKCurrentUserDefaultName { o["ownerRecordName"] = .string(z.ownerName) }
        return o
    }

    /// `{value, type}` for each key; an asset not yet uploaded is written by the save path, which uploads it first.
    static func fieldsJSON(_ r: CKRecord, keys: [CKRecord.FieldKey],
                           uploaded: [String: WireObject] = [:]) -> WireObject {
        var fields: WireObject = [:]
        for key in keys {
            guard let v = r.values[key] else {
                fields[key] = ["value": .null]
                continue
            }
            if let receipt = uploaded[key] {
                fields[key] = ["value": .object(receipt), "type": "ASSETID"]
                continue
            }
            if let (value, type) = wire(v) {
                var field: WireObject = type.isEmpty ? ["value": value] : ["value": value, "type": .string(type)]
                if !r.encryptedKeys.isEmpty && r.encryptedKeys.contains(key) { field["isEncrypted"] = true }
                fields[key] = .object(field)
            }
        }
        return fields
    }

    /// A value's JSON and its CloudKit type name ("" when an empty list leaves it unknown).
    static func wire(_ v: any CKRecordValueProtocol) -> (JSON, String)? {
        switch v {
        case let s as String: return (.string(s), "STRING")
        case let n as NSNumber:
            let t = String(cString: n.objCType)
            return t == "d" || t == "f" ? (.double(n.doubleValue), "DOUBLE") : (.int(n.int64Value), "INT64")
        case let d as Date: return (.double(d.timeIntervalSinceReferenceDate), "TIMESTAMP")
        case let d as Data: return (.string(d.base64EncodedString()), "BYTES")
        case let r as CKRecord.Reference:
            return (["recordName": .string(r.recordID.recordName), "zoneID": .object(zoneJSON(r.recordID.zoneID)),
                     "action": r.action == .deleteSelf ? "DELETE_SELF" : "NONE"], "REFERENCE")
        case let l as CLLocation:
            return (["latitude": .double(l.coordinate.latitude), "longitude": .double(l.coordinate.longitude),
                     "altitude": .double(l.altitude),
                     "horizontalAccuracy": .double(l.horizontalAccuracy), "verticalAccuracy": .double(l.verticalAccuracy),
                     "speed": .double(l.speed), "course": .double(l.course),
                     "timestamp": .int(Int64(l.timestamp.timeIntervalSince1970 * 1000))], "LOCATION")
        case let a as CKAsset:
            guard let receipt = a.receipt else { return nil }
            return (.object(receipt.filter { $0.key != "downloadURL" }), "ASSETID")
        case let list as [any CKRecordValueProtocol]:
            var items: [JSON] = []
            var type = ""
            for item in list {
                guard let (j, t) = wire(item) else { continue }
                items.append(j)
                if type.isEmpty { type = t } else if type != t, !(type == "INT64" && t == "DOUBLE") { type = type == "DOUBLE" && t == "INT64" ? type : "" }
                if type == "INT64", t == "DOUBLE" { type = "DOUBLE" }
            }
            return (.array(items), type.isEmpty ? "" : type + "_LIST")
        default:
            return nil
        }
    }
}
