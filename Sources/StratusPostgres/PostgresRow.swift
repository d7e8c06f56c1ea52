import CLibPQ
import Foundation

/// One row of a result, read in place from libpq's buffer (valid only inside the callback that receives it).
/// Results come in binary, so numbers are copied, not parsed.
public struct PostgresRow {
    let result: OpaquePointer
    let row: Int32

    public var columnCount: Int { Int(PQnfields(result)) }

    public func isNull(_ column: Int) -> Bool { PQgetisnull(result, row, Int32(column)) == 1 }

    /// The column's bytes as sent (binary format).
    public func raw(_ column: Int) -> UnsafeRawBufferPointer {
        let n = Int(PQgetlength(result, row, Int32(column)))
        guard let p = PQgetvalue(result, row, Int32(column)) else { return UnsafeRawBufferPointer(start: nil,
                count: 0) }
        return UnsafeRawBufferPointer(start: p, count: n)
    }

    private func bigEndian<T: FixedWidthInteger>(_ column: Int, as: T.Type) -> T {
        let b = raw(column)
        guard b.count == MemoryLayout<T>.size else { return 0 }
        return T(bigEndian: b.loadUnaligned(as: T.self))
    }

    /// An integer column of any width (int2, int4, int8, oid), or a bool as 0/1; nil when NULL.
    public func int64(_ column: Int) -> Int64? {
        guard !isNull(column) else { return nil }
        switch PQftype(result, Int32(column)) {
        case PostgresValue.OID.int8: return bigEndian(column, as: Int64.self)
        case PostgresValue.OID.int4: return Int64(bigEndian(column, as: Int32.self))
        case PostgresValue.OID.int2: return Int64(bigEndian(column, as: Int16.self))
        case PostgresValue.OID.oid: return Int64(bigEndian(column, as: UInt32.self))
        case PostgresValue.OID.bool: return raw(column).first == 1 ? 1 : 0
        case PostgresValue.OID.float8: return double(column).flatMap { Int64(exactly: $0.rounded(.towardZero)) }
        default: return string(column).flatMap { Int64($0) }
        }
    }

    public func double(_ column: Int) -> Double? {
        guard !isNull(column) else { return nil }
        switch PQftype(result, Int32(column)) {
        case PostgresValue.OID.float8: return Double(bitPattern: bigEndian(column, as: UInt64.self))
        case PostgresValue.OID.float4: return Double(Float(bitPattern: bigEndian(column, as: UInt32.self)))
        case PostgresValue.OID.int8, PostgresValue.OID.int4, PostgresValue.OID.int2: return int64(column).map(Double.init)
        default: return string(column).flatMap { Double($0) }
        }
    }

    public func bool(_ column: Int) -> Bool? {
        guard !isNull(column) else { return nil }
        if PQftype(result, Int32(column)) == PostgresValue.OID.bool { return raw(column).first == 1 }
        return int64(column).map { $0 != 0 }
    }

    /// Text columns (text, varchar, name) as sent; nil when NULL.
    public func string(_ column: Int) -> String? {
        guard !isNull(column) else { return nil }
        return String(decoding: raw(column), as: UTF8.self)
    }

    /// The UTF-8 bytes of a text column, borrowed for the callback.
    public func utf8(_ column: Int) -> UnsafeBufferPointer<UInt8> {
        raw(column).bindMemory(to: UInt8.self)
    }

    public func bytes(_ column: Int) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        return Array(raw(column))
    }

    public func data(_ column: Int) -> Data? {
        guard !isNull(column) else { return nil }
        return Data(raw(column))
    }

    /// A `point` column: (x, y).
    public func point(_ column: Int) -> (x: Double, y: Double)? {
        guard !isNull(column), PQftype(result, Int32(column)) == PostgresValue.OID.point else { return nil }
        let b = raw(column)
        guard b.count == 16 else { return nil }
        let x = Double(bitPattern: UInt64(bigEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt64.self)))
        let y = Double(bitPattern: UInt64(bigEndian: b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        return (x, y)
    }

    /// The column's value in the enum, by its type.
    public func value(_ column: Int) -> PostgresValue {
        guard !isNull(column) else { return .null }
        switch PQftype(result, Int32(column)) {
        case PostgresValue.OID.int8, PostgresValue.OID.int4, PostgresValue.OID.int2, PostgresValue.OID.oid: return .int64(int64(column)!)
        case PostgresValue.OID.float8, PostgresValue.OID.float4: return .double(double(column)!)
        case PostgresValue.OID.bool: return .bool(bool(column)!)
        case PostgresValue.OID.bytea: return .bytes(bytes(column)!)
        default: return .text(string(column)!)
        }
    }
}
