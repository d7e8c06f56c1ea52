import Foundation
import StratusModel
import StratusTemplates

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

    /// `2026-11-21 10:30:15.250 UTC`, computed: a DateFormatter per value would cost more than the rest of the page.
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
        case .timestamp(let t): utcString(t.millisSince1970)
        case .bytes(let d): "\(d.count) bytes"
        case .reference(let r): visible(r.recordName)
        case .asset(let a): "asset, \(byteCount(a.size))"
        case .location(let l): "\(l.latitude), \(l.longitude)"
        case .list(_,
                   let items): "[" + items.prefix(10).map(summary).joined(separator: ", ") + (items.count > 10 ? ", … \(items.count) items" : "") + "]"
        }
    }

    /// Everything about one value, for the record page (`record.mustache`). Every kind's name is present, `false`
    /// when it is not this value's kind: a template looking one up must not find a parent's (a list's items inside
    /// a list).
    struct Detail: Encodable {
        struct Timestamp: Encodable { let utc, local, millis, iso: String }
        struct Bytes: Encodable { let size, hex, base64: String }
        struct Reference: Encodable {
            let recordName: String
            let zone: OrFalse<String>
            let href: String
            let action: OrFalse<String>
        }
        struct Asset: Encodable { let size, checksum, href, type: String }
        struct Location: Encodable { let latitude, longitude: String; let accuracy, altitude: String? }
        var text: OrFalse<String> = .init(nil)
        var timestamp: OrFalse<Timestamp> = .init(nil)
        var bytes: OrFalse<Bytes> = .init(nil)
        var reference: OrFalse<Reference> = .init(nil)
        var asset: OrFalse<Asset> = .init(nil)
        var location: OrFalse<Location> = .init(nil)
        var isList = false
        var list: OrFalse<[Detail]> = .init(nil)
        var count: Int?
    }

    static func detail(_ v: FieldValue, link: (Reference) -> String, assetLink: (AssetValue) -> String,
                       assetType: (AssetValue) -> String = { _ in "" }) -> Detail {
        var d = Detail()
        switch v {
        case .string(let s): d.text = .init(visible(s))
        case .int64(let i): d.text = .init(String(i))
        case .double(let x): d.text = .init(String(x))
        case .timestamp(let t):
            let ms = t.millisSince1970
            d.timestamp = .init(.init(utc: utcString(ms), local: localString(ms), millis: String(ms),
                                      iso: RecordForm.inputTimestamp(ms) + "Z"))
        case .bytes(let b):
            let hex = spacedHex(b.prefix(512))
            d.bytes = .init(.init(size: byteCount(Int64(b.count)), hex: hex + (b.count > 512 ? " …" : ""),
                                  base64: b.base64EncodedString()))
        case .reference(let r):
            d.reference = .init(.init(recordName: visible(r.recordName), zone: .init(r.zoneID?.zoneName), href: link(r),
                                      action: .init(r.action == .deleteSelf ? "DELETE_SELF" : nil)))
        case .asset(let a):
            d.asset = .init(.init(size: byteCount(a.size), checksum: a.fileChecksum, href: assetLink(a),
                                  type: assetType(a)))
        case .location(let l):
            d.location = .init(.init(latitude: String(l.latitude), longitude: String(l.longitude),
                                     accuracy: l.horizontalAccuracy.map { String($0) },
                                     altitude: l.altitude.map { String($0) }))
        case .list(_, let items):
            d.isList = true
            d.list = .init(items.map { detail($0, link: link, assetLink: assetLink, assetType: assetType) })
            d.count = items.count
        }
        return d
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
        n < 1024 ? "\(n) bytes" : n < 1 << 20 ? String(format: "%.1f KB", Double(n) / 1024) : String(format: "%.1f MB",
                Double(n) / 1048576)
    }

    static func typeName(_ v: FieldValue) -> String { v.fieldType?.wireName ?? "LIST" }
}

/// Drawn by hand: a record page has one per value (see `TemplateRepresentable`); `ConsoleTemplateValueTests` holds
/// each equal to its `Encodable` form.
extension ValueDisplay.Detail: TemplateRepresentable {
    var templateValue: TemplateValue {
        .named(["text": text.templateValue, "timestamp": timestamp.templateValue, "bytes": bytes.templateValue,
                "reference": reference.templateValue, "asset": asset.templateValue, "location": location.templateValue,
                "isList": .bool(isList), "list": list.templateValue, "count": count.map { .string(String($0)) }])
    }
}

extension ValueDisplay.Detail.Timestamp: TemplateRepresentable {
    var templateValue: TemplateValue {
        .named(["utc": .string(utc), "local": .string(local), "millis": .string(millis), "iso": .string(iso)])
    }
}

extension ValueDisplay.Detail.Bytes: TemplateRepresentable {
    var templateValue: TemplateValue { .named(["size": .string(size), "hex": .string(hex), "base64": .string(base64)]) }
}

extension ValueDisplay.Detail.Reference: TemplateRepresentable {
    var templateValue: TemplateValue {
        .named(["recordName": .string(recordName), "zone": zone.templateValue, "href": .string(href),
                "action": action.templateValue])
    }
}

extension ValueDisplay.Detail.Asset: TemplateRepresentable {
    var templateValue: TemplateValue {
        .named(["size": .string(size), "checksum": .string(checksum), "href": .string(href), "type": .string(type)])
    }
}

extension ValueDisplay.Detail.Location: TemplateRepresentable {
    var templateValue: TemplateValue {
        .named(["latitude": .string(latitude), "longitude": .string(longitude),
                "accuracy": accuracy.map(TemplateValue.string), "altitude": altitude.map(TemplateValue.string)])
    }
}
