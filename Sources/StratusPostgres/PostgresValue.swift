import Foundation

/// A parameter or column value as Stratus exchanges it with PostgreSQL: the handful of types its tables use.
/// Parameters go over the wire in binary with their type named, so an `Int64` is never parsed from text.
public enum PostgresValue: Sendable, Hashable {
    case null
    case int64(Int64)
    case double(Double)
    case text(String)
    case bytes([UInt8])
    case bool(Bool)

    /// PostgreSQL's type OIDs for the parameter types (pg_type.h).
    enum OID {
        static let bool: UInt32 = 16, bytea: UInt32 = 17, int8: UInt32 = 20, int2: UInt32 = 21, int4: UInt32 = 23, text: UInt32 = 25
        static let oid: UInt32 = 26, float4: UInt32 = 700, float8: UInt32 = 701, varchar: UInt32 = 1043, name: UInt32 = 19, point: UInt32 = 600
    }

    var typeOID: UInt32 {
        switch self {
        case .null: 0
        case .int64: OID.int8
        case .double: OID.float8
        case .text: OID.text
        case .bytes: OID.bytea
        case .bool: OID.bool
        }
    }

    /// Appends the binary wire form (nil for NULL).
    func appendBinary(to out: inout [UInt8]) -> Bool {
        switch self {
        case .null: return false
        case .int64(let v): withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: $0) }
        case .double(let v): withUnsafeBytes(of: v.bitPattern.bigEndian) { out.append(contentsOf: $0) }
        case .text(let s): out.append(contentsOf: s.utf8)
        case .bytes(let b): out.append(contentsOf: b)
        case .bool(let b): out.append(b ? 1 : 0)
        }
        return true
    }
}

extension PostgresValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .int64(value) }
    public init(nilLiteral: ()) { self = .null }
}
