import Foundation

/// A JSON value, as the server and StratusKit read and write the wire. Bool is kept apart from numbers (CloudKit
/// has no boolean; `true` is refused, not silently read as 1), and integers apart from fractions (TIMESTAMP
/// refuses fractions).
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    public subscript(_ key: String) -> JSON? {
        if case .object(let o) = self { return o[key] } else { return nil }
    }

    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var object: [String: JSON]? { if case .object(let o) = self { o } else { nil } }
    public var array: [JSON]? { if case .array(let a) = self { a } else { nil } }
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var isNull: Bool { self == .null }

    /// Integers, also from strings (clients that send `numbersAsStrings`-style values) and integral doubles.
    public var int64: Int64? {
        switch self {
        case .int(let i): i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: Int64(d)
        case .string(let s): Int64(s)
        default: nil
        }
    }

    public var double: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        case .string(let s): Double(s)
        default: nil
        }
    }
}
