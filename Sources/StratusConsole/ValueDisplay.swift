import Foundation
import StratusModel

/// Record values rendered for people, as template values (mustache escapes them; control characters are made
/// visible here so that they show as text rather than vanish or reflow the page).
enum ValueDisplay {
    /// Control characters (other than newline and tab) as their Unicode "control picture" symbols.
    static func visible(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || $0.value == 0x7f }) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if u.value < 0x20 && u != "\n" && u != "\t" { out.append(Unicode.Scalar(0x2400 + u.value)!) }
            else if u.value == 0x7f { out.append(Unicode.Scalar(0x2421)!) }
            else { out.append(u) }
        }
        return String(out)
    }

    /// `2026-11-21 10:30:15.250 UTC`, computed (DateFormatter was a tenth of a records page's time).
    static func utcString(_ millis: Int64) -> String { CivilTime(millis).text(separator: " ") + " UTC" }
    static func localString(_ millis: Int64) -> String {
        let offset = TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: Double(millis) / 1000))
        let sign = offset < 0 ? "-" : "+", a = abs(offset)
        let hours = a / 3600, minutes = a / 60 % 60
        return CivilTime(millis + Int64(offset) * 1000).text(separator: " ") + " " + sign + (hours < 10 ? "0" : "") + String(hours) + ":" + (minutes < 10 ? "0" : "") + String(minutes)
    }

    /// A short one-line text for tables and CSV.
    static func summary(_ v: FieldValue) -> String {
        switch v {
        // utf8.count first: counting characters walks the whole string, and most are short.
        case .string(let s): visible(s.utf8.count > 200 && s.count > 200 ? String(s.prefix(200)) + "…" : s)
        case .int64(let i): String(i)
        case .double(let d): String(d)
        case .timestamp(let t): utcString(t)
        case .bytes(let d): "\(d.count) bytes"
        case .reference(let r): visible(r.recordName)
        case .asset(let a): "asset, \(byteCount(a.size))"
        case .location(let l): "\(l.latitude), \(l.longitude)"
        case .list(_, let items): "[" + items.prefix(10).map(summary).joined(separator: ", ") + (items.count > 10 ? ", … \(items.count) items" : "") + "]"
        }
    }

    /// Every kind key, false: a template looking one up must not find a parent's (a list's items inside a list).
    nonisolated(unsafe) static let noKinds: [String: Any] = ["text": false, "timestamp": false, "bytes": false, "reference": false, "asset": false,
                                         "location": false, "isList": false, "list": false]

    /// Everything about one value, for the record page.
    static func detail(_ v: FieldValue, link: (Reference) -> String, assetLink: (AssetValue) -> String, assetType: (AssetValue) -> String = { _ in "" }) -> [String: Any] {
        noKinds.merging(kinds(v, link: link, assetLink: assetLink, assetType: assetType)) { _, new in new }
    }

    private static func kinds(_ v: FieldValue, link: (Reference) -> String, assetLink: (AssetValue) -> String, assetType: (AssetValue) -> String) -> [String: Any] {
        switch v {
        case .string(let s): return ["text": visible(s)]
        case .int64(let i): return ["text": String(i)]
        case .double(let d): return ["text": String(d)]
        case .timestamp(let t): return ["timestamp": ["utc": utcString(t), "local": localString(t), "millis": String(t), "iso": RecordForm.inputTimestamp(t) + "Z"]]
        case .bytes(let d):
            let hex = spacedHex(d.prefix(512))
            return ["bytes": ["size": byteCount(Int64(d.count)), "hex": hex + (d.count > 512 ? " …" : ""), "base64": d.base64EncodedString()]]
        case .reference(let r):
            return ["reference": ["recordName": visible(r.recordName), "zone": r.zoneID.map { $0.zoneName as Any } ?? false, "href": link(r),
                                  "action": r.action == .deleteSelf ? "DELETE_SELF" : false]]
        case .asset(let a):
            return ["asset": ["size": byteCount(a.size), "checksum": a.fileChecksum, "href": assetLink(a), "type": assetType(a)]]
        case .location(let l):
            var d: [String: Any] = ["latitude": String(l.latitude), "longitude": String(l.longitude)]
            if let a = l.horizontalAccuracy { d["accuracy"] = String(a) }
            if let a = l.altitude { d["altitude"] = String(a) }
            return ["location": d]
        case .list(_, let items):
            return ["isList": true, "list": items.map { detail($0, link: link, assetLink: assetLink, assetType: assetType) }, "count": items.count]
        }
    }

    /// `0a 1b 2c`: bytes as hex pairs with spaces, by table (String(format:) per byte was slow).
    static func spacedHex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3)
        for b in bytes {
            if !out.isEmpty { out.append(UInt8(ascii: " ")) }
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func byteCount(_ n: Int64) -> String {
        n < 1024 ? "\(n) bytes" : n < 1 << 20 ? String(format: "%.1f KB", Double(n) / 1024) : String(format: "%.1f MB", Double(n) / 1048576)
    }

    /// Values as JSON objects (CloudKit's wire shapes) for the pages' JSON variants and the export.
    static func json(_ v: FieldValue) -> Any {
        switch v {
        case .string(let s): s
        case .int64(let i): i
        case .double(let d): d
        case .timestamp(let t): t
        case .bytes(let d): d.base64EncodedString()
        case .reference(let r): referenceJSON(r)
        case .asset(let a): ["fileChecksum": a.fileChecksum, "size": a.size] as [String: Any]
        case .location(let l): ["latitude": l.latitude, "longitude": l.longitude] as [String: Any]
        case .list(_, let items): items.map(json)
        }
    }

    static func referenceJSON(_ r: Reference) -> [String: Any] {
        var d: [String: Any] = ["recordName": r.recordName, "action": r.action == .deleteSelf ? "DELETE_SELF" : "NONE"]
        if let z = r.zoneID { d["zoneID"] = ["zoneName": z.zoneName] }
        return d
    }

    static func typeName(_ v: FieldValue) -> String { v.fieldType?.wireName ?? "LIST" }

    static func recordJSON(_ r: StoredRecord) -> [String: Any] {
        var d: [String: Any] = ["recordName": r.recordName, "recordType": r.recordType, "zoneID": ["zoneName": r.zoneID.zoneName]]
        if let t = r.recordChangeTag { d["recordChangeTag"] = t }
        d["fields"] = r.fields.mapValues { ["value": json($0), "type": typeName($0)] }
        if let c = r.created { d["created"] = ["timestamp": c.timestamp, "userRecordName": c.userRecordName, "deviceID": c.deviceID] }
        if let m = r.modified { d["modified"] = ["timestamp": m.timestamp, "userRecordName": m.userRecordName, "deviceID": m.deviceID] }
        return d
    }
}
