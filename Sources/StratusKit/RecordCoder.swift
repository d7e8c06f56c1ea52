import Foundation
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

    static func date(_ n: NSNumber, _ dates: Dates) -> Date {
        switch dates {
        case .referenceSeconds: Date(timeIntervalSinceReferenceDate: n.doubleValue)
        case .milliseconds: Date(timeIntervalSince1970: n.doubleValue / 1000)
        }
    }

    /// Query filters with their TIMESTAMP values in milliseconds, as subscriptions keep them (their predicates
    /// compare to the millisecond).
    static func inMilliseconds(_ filters: [[String: Any]]) -> [[String: Any]] {
        filters.map { f in
            guard var v = f["fieldValue"] as? [String: Any], let type = v["type"] as? String, type.hasPrefix("TIMESTAMP") else { return f }
            func ms(_ x: Any) -> Any { (x as? NSNumber).map { Int64((date($0, .referenceSeconds).timeIntervalSince1970 * 1000).rounded()) } ?? x }
            if let items = v["value"] as? [Any] { v["value"] = items.map(ms) } else if let x = v["value"] { v["value"] = ms(x) }
            var out = f
            out["fieldValue"] = v
            return out
        }
    }

    // MARK: Reading

    static func zoneID(_ j: Any?, scope: CKDatabase.Scope) -> CKRecordZone.ID {
        guard let o = j as? [String: Any] else { return .default }
        let name = o["zoneName"] as? String ?? CKRecordZone.ID.defaultZoneName
        let owner = scope == .shared ? (o["ownerRecordName"] as? String ?? CKCurrentUserDefaultName) : CKCurrentUserDefaultName
        return CKRecordZone.ID(zoneName: name, ownerName: owner)
    }

    static func userID(_ j: Any?) -> CKRecord.ID? {
        guard let o = j as? [String: Any], let u = o["userRecordName"] as? String else { return nil }
        return CKRecord.ID(recordName: u)
    }

    static func date(_ j: Any?) -> Date? {
        guard let o = j as? [String: Any], let t = o["timestamp"] as? NSNumber else { return nil }
        return Date(timeIntervalSince1970: t.doubleValue / 1000)
    }

    /// A record dictionary from the server; nil for anything that is not one (an error, a deletion).
    static func record(_ j: [String: Any], scope: CKDatabase.Scope, zoneID defaultZone: CKRecordZone.ID, assets: AssetDownloads?) -> CKRecord? {
        guard let name = j["recordName"] as? String, let type = j["recordType"] as? String else { return nil }
        let zone = j["zoneID"] != nil ? zoneID(j["zoneID"], scope: scope) : defaultZone
        let id = CKRecord.ID(recordName: name, zoneID: zone)
        let r: CKRecord = type == CKRecord.SystemType.share ? CKShare(decodedID: id) : CKRecord(recordType: type, recordID: id)
        r.recordChangeTag = j["recordChangeTag"] as? String
        r.creationDate = date(j["created"])
        r.modificationDate = date(j["modified"])
        r.creatorUserRecordID = userID(j["created"])
        r.lastModifiedUserRecordID = userID(j["modified"])
        if let p = j["parent"] as? [String: Any], let pn = p["recordName"] as? String {
            r.parent = CKRecord.Reference(recordID: CKRecord.ID(recordName: pn, zoneID: zone), action: .none)
        }
        if let s = j["share"] as? [String: Any], let sn = s["recordName"] as? String {
            r.share = CKRecord.Reference(recordID: CKRecord.ID(recordName: sn, zoneID: s["zoneID"] != nil ? zoneID(s["zoneID"], scope: scope) : zone), action: .none)
        }
        if let fields = j["fields"] as? [String: Any] { readFields(fields, into: r, zoneID: zone, scope: scope, assets: assets) }
        if let share = r as? CKShare { share.readShare(j, scope: scope) }
        r.markSaved()
        return r
    }

    static func readFields(_ fields: [String: Any], into r: CKRecord, zoneID: CKRecordZone.ID, scope: CKDatabase.Scope = .private, assets: AssetDownloads?,
                           dates: Dates = .referenceSeconds) {
        r.values.reserveCapacity(fields.count)
        for (key, f) in fields {
            guard let f = f as? [String: Any], let raw = f["value"] else { continue }
            if let v = value(raw, type: f["type"] as? String, zoneID: zoneID, scope: scope, assets: assets, dates: dates) {
                r.values[key] = v
                // An ENCRYPTED field is read through `encryptedValues` only, as with CloudKit.
                if f["isEncrypted"] as? Bool == true { r.encryptedKeys.insert(key) } else if !r.encryptedKeys.isEmpty { r.encryptedKeys.remove(key) }
            }
        }
    }

    static func value(_ raw: Any, type: String?, zoneID: CKRecordZone.ID, scope: CKDatabase.Scope, assets: AssetDownloads?,
                      dates: Dates = .referenceSeconds) -> (any CKRecordValueProtocol)? {
        if let type, type.hasSuffix("_LIST") {
            guard let items = raw as? [Any] else { return nil }
            let element = String(type.dropLast(5))
            return items.compactMap { value($0, type: element == "UNKNOWN" ? nil : element, zoneID: zoneID, scope: scope, assets: assets, dates: dates) }
        }
        switch type {
        case "STRING": return raw as? String
        case "INT64":
            guard let n = (raw as? NSNumber) ?? (raw as? String).flatMap(Int64.init).map(NSNumber.init(value:)) else { return nil }
            // 0 and 1 read as Bool as well as Int, as an INT64 does through CloudKit's NSNumber.
            let i = n.int64Value
            return i == 0 || i == 1 ? NSNumber(value: i == 1) : NSNumber(value: i)
        case "DOUBLE":
            guard let n = (raw as? NSNumber) ?? (raw as? String).flatMap(Double.init).map(NSNumber.init(value:)) else { return nil }
            return NSNumber(value: n.doubleValue)
        case "TIMESTAMP":
            guard let n = raw as? NSNumber else { return nil }
            return date(n, dates)
        case "BYTES":
            return (raw as? String).flatMap { Data(base64Encoded: $0) }
        case "REFERENCE":
            guard let o = raw as? [String: Any], let name = o["recordName"] as? String else { return nil }
            let z = o["zoneID"] != nil ? RecordCoder.zoneID(o["zoneID"], scope: scope) : zoneID
            return CKRecord.Reference(recordID: CKRecord.ID(recordName: name, zoneID: z), action: (o["action"] as? String) == "DELETE_SELF" ? .deleteSelf : .none)
        case "LOCATION":
            guard let o = raw as? [String: Any], let lat = (o["latitude"] as? NSNumber)?.doubleValue, let lon = (o["longitude"] as? NSNumber)?.doubleValue else { return nil }
            func d(_ k: String, _ dflt: Double) -> Double { (o[k] as? NSNumber)?.doubleValue ?? dflt }
            let timestamp = Date(timeIntervalSince1970: d("timestamp", 0) / 1000)
            #if canImport(CoreLocation)
            // CloudKit apps read locations as CLLocation where CoreLocation exists.
            return CLLocation(coordinate: CLLocationCoordinate2D(latitude: lat, longitude: lon), altitude: d("altitude", 0),
                              horizontalAccuracy: d("horizontalAccuracy", 0), verticalAccuracy: d("verticalAccuracy", -1),
                              course: d("course", -1), speed: d("speed", -1), timestamp: timestamp)
            #else
            return CKLocation(latitude: lat, longitude: lon, altitude: d("altitude", 0), horizontalAccuracy: d("horizontalAccuracy", 0),
                              verticalAccuracy: d("verticalAccuracy", -1), speed: d("speed", -1), course: d("course", -1), timestamp: timestamp)
            #endif
        case "ASSETID", "ASSET":
            guard let o = raw as? [String: Any] else { return nil }
            let local = assets?.localFile(for: o)
            return CKAsset(fileURL: local, receipt: o)
        default:
            // No type: read the JSON as it is.
            switch raw {
            case let s as String: return s
            case let n as NSNumber: return n
            case let items as [Any]: return items.compactMap { value($0, type: nil, zoneID: zoneID, scope: scope, assets: assets, dates: dates) }
            default: return nil
            }
        }
    }

    // MARK: Writing

    static func zoneJSON(_ z: CKRecordZone.ID) -> [String: Any] {
        var o: [String: Any] = ["zoneName": z.zoneName]
        if z.ownerName != CKCurrentUserDefaultName { o["ownerRecordName"] = z.ownerName }
        return o
    }

    /// `{value, type}` for each key; an asset not yet uploaded is written by the save path, which uploads it first.
    static func fieldsJSON(_ r: CKRecord, keys: [CKRecord.FieldKey], uploaded: [String: [String: Any]] = [:]) -> [String: Any] {
        var fields: [String: Any] = [:]
        for key in keys {
            guard let v = r.values[key] else {
                fields[key] = ["value": NSNull()]
                continue
            }
            if let receipt = uploaded[key] {
                fields[key] = ["value": receipt, "type": "ASSETID"]
                continue
            }
            if let (value, type) = wire(v) {
                var field: [String: Any] = type.isEmpty ? ["value": value] : ["value": value, "type": type]
                if !r.encryptedKeys.isEmpty && r.encryptedKeys.contains(key) { field["isEncrypted"] = true }
                fields[key] = field
            }
        }
        return fields
    }

    /// A value's JSON and its CloudKit type name ("" when an empty list leaves it unknown).
    static func wire(_ v: any CKRecordValueProtocol) -> (Any, String)? {
        switch v {
        case let s as String: return (s, "STRING")
        case let n as NSNumber:
            let t = String(cString: n.objCType)
            return t == "d" || t == "f" ? (n.doubleValue, "DOUBLE") : (n.int64Value, "INT64")
        case let d as Date: return (d.timeIntervalSinceReferenceDate, "TIMESTAMP")
        case let d as Data: return (d.base64EncodedString(), "BYTES")
        case let r as CKRecord.Reference:
            return (["recordName": r.recordID.recordName, "zoneID": zoneJSON(r.recordID.zoneID),
                     "action": r.action == .deleteSelf ? "DELETE_SELF" : "NONE"] as [String: Any], "REFERENCE")
        case let l as CKLocation:
            return (["latitude": l.latitude, "longitude": l.longitude, "altitude": l.altitude, "horizontalAccuracy": l.horizontalAccuracy,
                     "verticalAccuracy": l.verticalAccuracy, "speed": l.speed, "course": l.course,
                     "timestamp": Int64(l.timestamp.timeIntervalSince1970 * 1000)] as [String: Any], "LOCATION")
        case let a as CKAsset:
            guard let receipt = a.receipt else { return nil }
            return (receipt.filter { $0.key != "downloadURL" }, "ASSETID")
        case let list as [any CKRecordValueProtocol]:
            var items: [Any] = []
            var type = ""
            for item in list {
                guard let (j, t) = wire(item) else { continue }
                items.append(j)
                if type.isEmpty { type = t } else if type != t, !(type == "INT64" && t == "DOUBLE") { type = type == "DOUBLE" && t == "INT64" ? type : "" }
                if type == "INT64", t == "DOUBLE" { type = "DOUBLE" }
            }
            return (items, type.isEmpty ? "" : type + "_LIST")
        default:
            #if canImport(CoreLocation)
            if let l = v as? CLLocation {
                return wire(CKLocation(latitude: l.coordinate.latitude, longitude: l.coordinate.longitude, altitude: l.altitude,
                                       horizontalAccuracy: l.horizontalAccuracy, verticalAccuracy: l.verticalAccuracy, speed: l.speed,
                                       course: l.course, timestamp: l.timestamp))
            }
            #endif
            return nil
        }
    }
}
