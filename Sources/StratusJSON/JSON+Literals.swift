import Foundation

/// Literals for JSON built in code (`["zoneName": "Notes", "atomic": true]`); a value held in a variable is
/// wrapped with its case or `JSON(_:)`, so that nothing is turned into JSON by a guess at its dynamic type.
extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }

    public init(_ s: String) { self = .string(s) }
    public init(_ i: Int) { self = .int(Int64(i)) }
    public init(_ i: Int64) { self = .int(i) }
    public init(_ d: Double) { self = .double(d) }
    public init(_ b: Bool) { self = .bool(b) }
    public init(_ o: [String: JSON]) { self = .object(o) }
    public init(_ a: [JSON]) { self = .array(a) }
    public init(_ a: [String]) { self = .array(a.map(JSON.string)) }
    public init(_ a: [[String: JSON]]) { self = .array(a.map(JSON.object)) }

    /// The text of the value (objects' keys sorted).
    public var encoded: Data {
        var w = JSONWriter(capacity: 256)
        w.value(self)
        return w.data
    }
}
