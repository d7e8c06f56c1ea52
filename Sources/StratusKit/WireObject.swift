import Foundation
import StratusJSON

/// A CloudKit Web Services object as sent and received: typed JSON (StratusJSON, the server's own), so an INT64
/// stays an integer, a boolean stays apart from 0 and 1, and nothing is guessed from a value's dynamic type.
typealias WireObject = [String: JSON]

extension JSON {
    /// A value held in a variable, as JSON (literals need no wrapping).
    init(_ s: String) { self = .string(s) }
    init(_ i: Int) { self = .int(Int64(i)) }
    init(_ i: Int64) { self = .int(i) }
    init(_ d: Double) { self = .double(d) }
    init(_ b: Bool) { self = .bool(b) }
    init(_ o: WireObject) { self = .object(o) }
    init(_ a: [String]) { self = .array(a.map(JSON.string)) }
    init(_ a: [WireObject]) { self = .array(a.map(JSON.object)) }

    /// Parses a whole document (RFC 8259, depth-bounded, as the server parses); nil for anything that is not one.
    init?(parsing data: Data) {
        guard let v = try? JSONParser.parse(data) else { return nil }
        self = v
    }

    /// The text of the value, keys sorted (what archives keep).
    var encoded: Data {
        var w = JSONWriter(capacity: 256)
        w.value(self)
        return w.data
    }

    /// An array of objects (`records`, `zones`, `subscriptions`), skipping anything else.
    var objects: [WireObject]? { array?.compactMap(\.object) }
    /// An array of strings, skipping anything else.
    var strings: [String]? { array?.compactMap(\.string) }
    /// A number as a Double (integers too), as `NSNumber.doubleValue` read one; strings are not numbers here.
    var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    /// An integer that fits `Int`.
    var int: Int? { int64.flatMap { Int(exactly: $0) } }
}

extension JSON {
    /// A Foundation property list as JSON (what an app hands in as a push's `userInfo`): strings, numbers,
    /// arrays, dictionaries with string keys and `NSNull`; nil for anything else.
    init?(foundation v: Any) {
        switch v {
        case let j as JSON: self = j
        case let s as String: self = .string(s)
        case let n as NSNumber:
            let t = String(cString: n.objCType)
            if type(of: v) == Bool.self { self = .bool(n.boolValue) } else if t == "d" || t == "f" { self = .double(n.doubleValue) } else { self = .int(n.int64Value) }
        case let a as [Any]: self = .array(a.compactMap { JSON(foundation: $0) })
        case let o as [AnyHashable: Any]:
            var out: WireObject = [:]
            for (k, x) in o { if let k = k.base as? String, let j = JSON(foundation: x) { out[k] = j } }
            self = .object(out)
        case is NSNull: self = .null
        default: return nil
        }
    }
}

extension JSON {
    /// The value as Foundation hands JSON to apps (`String`, `NSNumber`, arrays, dictionaries, `NSNull`), for the
    /// API that CloudKit types as `Any` (a query notification's `recordFields`).
    var foundation: Any {
        switch self {
        case .null: NSNull()
        case .bool(let b): NSNumber(value: b)
        case .int(let i): NSNumber(value: i)
        case .double(let d): NSNumber(value: d)
        case .string(let s): s
        case .array(let a): a.map(\.foundation)
        case .object(let o): o.mapValues(\.foundation)
        }
    }
}
