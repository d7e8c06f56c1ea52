import Foundation
import StratusModel

/// A compact binary form of field values for the columns that hold more than one SQLite value can
/// (lists, references, locations, assets). Decoding it is a straight walk over bytes, an order of
/// magnitude cheaper than JSON, which is what keeps query pages close to plain SQL.
enum FieldValueCodec {
    private enum Tag: UInt8 {
        /// `timestamp` holds milliseconds since 1970, as values written before v21 do; `timestampSeconds` a
        /// `Timestamp`'s own bits. Both are read; only the second is written.
        case string = 1, int64, double, bytes, timestamp, reference, asset, location, list, null, timestampSeconds
    }

    static func encode(_ value: FieldValue) -> Data {
        var w = Writer()
        w.value(value)
        return Data(w.bytes)
    }

    static func decode(_ data: Data) throws(StratusError) -> FieldValue {
        let v: FieldValue? = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> FieldValue? in decode(raw) }
        guard let v else { throw StratusError(.internalError, "stored field value is corrupt") }
        return v
    }

    /// Decodes bytes borrowed from SQLite's row buffer; nil when they are not one whole value.
    static func decode(_ raw: UnsafeRawBufferPointer) -> FieldValue? {
        var r = Reader(bytes: raw)
        guard let v = r.value(), r.offset == raw.count else { return nil }
        return v
    }

    private struct Writer {
        var bytes: [UInt8] = []
        mutating func varint(_ v: UInt64) {
            var v = v
            while v >= 0x80 { bytes.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
            bytes.append(UInt8(v))
        }
        mutating func int(_ v: Int64) { varint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }
        mutating func double(_ d: Double) { withUnsafeBytes(of: d.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        mutating func string(_ s: String) { let u = Array(s.utf8); varint(UInt64(u.count)); bytes.append(contentsOf: u) }
        mutating func optString(_ s: String?) { if let s { bytes.append(1); string(s) } else { bytes.append(0) } }
        mutating func optDouble(_ d: Double?) { if let d { bytes.append(1); double(d) } else { bytes.append(0) } }
        mutating func value(_ v: FieldValue) {
            switch v {
            case .string(let s): bytes.append(Tag.string.rawValue); string(s)
            case .int64(let i): bytes.append(Tag.int64.rawValue); int(i)
            case .double(let d): bytes.append(Tag.double.rawValue); double(d)
            case .bytes(let d): bytes.append(Tag.bytes.rawValue); varint(UInt64(d.count)); bytes.append(contentsOf: d)
            case .timestamp(let t): bytes.append(Tag.timestampSeconds.rawValue); double(t.secondsSinceReferenceDate)
            case .reference(let r):
                bytes.append(Tag.reference.rawValue); string(r.recordName)
                bytes.append(UInt8(ReferenceAction.allCases.firstIndex(of: r.action)!))
                optString(r.zoneID?.zoneName); optString(r.zoneID?.ownerRecordName)
            case .asset(let a):
                bytes.append(Tag.asset.rawValue); string(a.fileChecksum); int(a.size)
                optString(a.referenceChecksum); optString(a.wrappingKey); optString(a.receipt)
            case .location(let l):
                bytes.append(Tag.location.rawValue); double(l.latitude); double(l.longitude)
                optDouble(l.horizontalAccuracy); optDouble(l.verticalAccuracy); optDouble(l.altitude)
                optDouble(l.speed); optDouble(l.course)
                if let t = l.timestamp { bytes.append(1); int(t) } else { bytes.append(0) }
            case .list(let t, let items):
                bytes.append(Tag.list.rawValue)
                bytes.append(t.map { UInt8(ScalarType.allCases.firstIndex(of: $0)! + 1) } ?? 0)
                varint(UInt64(items.count))
                for item in items { value(item) }
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        mutating func byte() -> UInt8? { guard offset < bytes.count else { return nil }; defer { offset += 1 }; return bytes[offset] }
        mutating func varint() -> UInt64? {
            var result: UInt64 = 0, shift: UInt64 = 0
            while let b = byte() {
                result |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return result }
                shift += 7
                if shift > 63 { return nil }
            }
            return nil
        }
        mutating func int() -> Int64? { varint().map { Int64(bitPattern: ($0 >> 1) ^ (0 &- ($0 & 1))) } }
        mutating func double() -> Double? {
            guard offset + 8 <= bytes.count else { return nil }
            var bits: UInt64 = 0
            withUnsafeMutableBytes(of: &bits) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 8])) }
            offset += 8
            return Double(bitPattern: UInt64(littleEndian: bits))
        }
        mutating func rawBytes() -> UnsafeRawBufferPointer? {
            guard let n = varint(), n <= UInt64(bytes.count - offset) else { return nil }
            defer { offset += Int(n) }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(n)])
        }
        mutating func string() -> String? { rawBytes().map { String(decoding: $0, as: UTF8.self) } }
        mutating func optString() -> String?? { guard let f = byte() else { return nil }; return f == 0 ? .some(nil) : string().map { .some($0) } }
        mutating func optDouble() -> Double?? { guard let f = byte() else { return nil }; return f == 0 ? .some(nil) : double().map { .some($0) } }
        mutating func value() -> FieldValue? {
            guard let t = byte().flatMap(Tag.init(rawValue:)) else { return nil }
            switch t {
            case .string: return string().map { .string($0) }
            case .int64: return int().map { .int64($0) }
            case .double: return double().map { .double($0) }
            case .bytes: return rawBytes().map { .bytes(Data($0)) }
            case .timestamp: return int().map { .timestamp(Timestamp(millisSince1970: $0)) }
            case .timestampSeconds: return double().map { .timestamp(Timestamp(secondsSinceReferenceDate: $0)) }
            case .reference:
                guard let name = string(), let a = byte(), Int(a) < ReferenceAction.allCases.count,
                      let zone = optString(), let owner = optString() else { return nil }
                let zoneID = zone.map { ZoneID(zoneName: $0, ownerRecordName: owner) }
                return .reference(Reference(recordName: name, zoneID: zoneID, action: ReferenceAction.allCases[Int(a)]))
            case .asset:
                guard let c = string(), let s = int(), let rc = optString(), let wk = optString(), let rcpt = optString() else { return nil }
                return .asset(AssetValue(fileChecksum: c, size: s, referenceChecksum: rc, wrappingKey: wk,
                                         receipt: rcpt))
            case .location:
                guard let lat = double(), let lon = double(), let h = optDouble(), let v = optDouble(), let alt = optDouble(),
                      let sp = optDouble(), let co = optDouble(), let hasT = byte() else { return nil }
                var ts: Int64? = nil
                if hasT == 1 { guard let t = int() else { return nil }; ts = t }
                return .location(Location(latitude: lat, longitude: lon, horizontalAccuracy: h, verticalAccuracy: v,
                                          altitude: alt, speed: sp, course: co, timestamp: ts))
            case .list:
                guard let et = byte(), Int(et) <= ScalarType.allCases.count, let n = varint(), n <= UInt64(bytes.count) else { return nil }
                var items: [FieldValue] = []
                items.reserveCapacity(Int(n))
                for _ in 0..<n { guard let v = value() else { return nil }; items.append(v) }
                return .list(et == 0 ? nil : ScalarType.allCases[Int(et) - 1], items)
            case .null: return nil
            }
        }
    }
}
