import Foundation
import StratusModel

extension JSONWriter {
    /// A field value as plain JSON, as notifications' `af` and webhook bodies carry it: strings, numbers, record
    /// names, base64 bytes, `{latitude, longitude}`, lists of those; false (nothing written) for an asset.
    mutating func plain(_ v: FieldValue) -> Bool {
        switch v {
        case .string(let s): string(s)
        case .int64(let i): int(i)
        case .timestamp(let t): int(t.millisSince1970)
        case .double(let d): double(d)
        case .reference(let r): string(r.recordName)
        case .bytes(let d): string(d.base64EncodedString())
        case .location(let l):
            beginObject()
            key("latitude"); double(l.latitude)
            key("longitude"); double(l.longitude)
            endObject()
        case .list(_, let xs):
            beginArray()
            for x in xs { _ = plain(x) }
            endArray()
        case .asset: return false
        }
        return true
    }

    /// `"key":["a","b"]`.
    mutating func strings(_ k: StaticString, _ values: [String]) {
        key(k)
        beginArray()
        for v in values { string(v) }
        endArray()
    }
}
