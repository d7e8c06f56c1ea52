import Crypto
import Foundation
import StratusModel

/// The continuation marker: which query it continues (a fingerprint) and the last row's sort-key values.
enum ContinuationMarker {
    static let kind: UInt8 = 3

    /// What identifies a query for paging: database, type, zone, filters and sorts (not limit or desired keys).
    /// Built from a compact canonical encoding, not from Swift's reflective descriptions, which are slow.
    static func fingerprint(_ q: Query, database: DatabaseID) -> [UInt8] {
        var bytes = Array("\(database.scope.rawValue)|\(database.ownerRecordName)|\(q.recordType)|\(q.zoneID?.zoneName ?? "*")".utf8)
        func field(_ f: FieldRef) -> String {
            switch f {
            case .field(let n): "f:" + n
            case .system(let s): "s:" + s.rawValue
            }
        }
        for f in q.filters {
            bytes += Array("|\(f.comparator.rawValue)|\(field(f.field))|\(f.distance ?? -1)|".utf8)
            bytes += FieldValueCodec.encode(f.value)
        }
        for s in q.sorts {
            bytes += Array("|sort|\(field(s.field))|\(s.ascending)|".utf8)
            if let p = s.relativeLocation { bytes += FieldValueCodec.encode(.location(p)) }
        }
        return Array(SHA256.hash(data: bytes).prefix(8))
    }

    static func make(_ signer: TokenSigner, fingerprint: [UInt8], values: [SQLValue]) -> String {
        var p = TokenPayload()
        p.put(fingerprint)
        p.put(Int64(values.count))
        for v in values {
            switch v {
            case .null: p.bytes.append(0)
            case .int64(let i): p.bytes.append(1); p.put(i)
            case .double(let d): p.bytes.append(2); p.put(d)
            case .text(let s): p.bytes.append(3); p.put(Array(s.utf8))
            case .blob(let b): p.bytes.append(4); p.put(Array(b))
            }
        }
        return signer.sign(kind: kind, p.bytes)
    }

    static func read(_ signer: TokenSigner, _ marker: String, fingerprint: [UInt8]) throws(StratusError) -> [SQLValue] {
        var p = TokenPayload(try signer.verify(kind: kind, marker, what: "continuationMarker"))
        guard p.data() == fingerprint else { throw .badRequest("continuationMarker belongs to a different query") }
        guard let n = p.int(), n >= 0, n < 64 else { throw .badRequest("continuationMarker is not valid") }
        var values: [SQLValue] = []
        for _ in 0..<n {
            guard p.offset < p.bytes.count else { throw .badRequest("continuationMarker is not valid") }
            let tag = p.bytes[p.offset]
            p.offset += 1
            switch tag {
            case 0: values.append(.null)
            case 1: guard let i = p.int() else { throw .badRequest("continuationMarker is not valid") }; values.append(.int64(i))
            case 2: guard let d = p.double() else { throw .badRequest("continuationMarker is not valid") }; values.append(.double(d))
            case 3: guard let b = p.data() else { throw .badRequest("continuationMarker is not valid") }; values.append(.text(String(decoding: b, as: UTF8.self)))
            case 4: guard let b = p.data() else { throw .badRequest("continuationMarker is not valid") }; values.append(.blob(Data(b)))
            default: throw .badRequest("continuationMarker is not valid")
            }
        }
        guard p.atEnd else { throw .badRequest("continuationMarker is not valid") }
        return values
    }
}
