/// A template object's names and values side by side. Objects here hold a handful to a few dozen names, most
/// of them short enough for Swift's inline small strings; comparing those in a scan is cheaper than hashing
/// every name a template looks up (hashing was a visible share of rendering). Immutable, in one allocation of
/// its own: a lookup takes an object out of its enum case at every level of a template's sections, which with
/// three arrays held inline was three retains and releases each time.
public struct TemplateObject: Sendable, Equatable {
    private final class Storage: Sendable {
        let names: [String]
        let values: [TemplateValue]
        /// Each name's `fingerprint`, in step with `names`: a lookup compares integers, and strings only where those
        /// agree (a template's section looks a name up in every enclosing object before it finds it, or does not).
        let prints: [UInt64]

        init(names: [String], values: [TemplateValue]) {
            self.names = names
            self.values = values
            prints = names.map(TemplateObject.fingerprint)
        }
    }

    private let storage: Storage

    public init(_ d: [String: String]) {
        storage = Storage(names: Array(d.keys), values: d.values.map { .string($0) })
    }

    public init(names: [String], values: [TemplateValue]) {
        storage = Storage(names: names, values: values)
    }

    /// A name's length, first two bytes and last byte: names that differ almost always differ here, and it costs
    /// a few instructions to make for every name of every object.
    @inline(__always) static func fingerprint(_ name: String) -> UInt64 {
        let utf8 = name.utf8
        var it = utf8.makeIterator()
        let first = UInt64(it.next() ?? 0), second = UInt64(it.next() ?? 0), last = UInt64(utf8.last ?? 0)
        return UInt64(truncatingIfNeeded: utf8.count) << 24 | first << 16 | second << 8 | last
    }

    /// The object with `name` set to `value` (replaced when it is there).
    public func setting(_ name: String, _ value: TemplateValue) -> TemplateObject {
        var names = storage.names, values = storage.values
        if let i = names.lastIndex(of: name) { values[i] = value } else {
            names.append(name)
            values.append(value)
        }
        return TemplateObject(names: names, values: values)
    }

    /// Names and values in the order they were given (a name given twice, twice).
    public var members: Zip2Sequence<[String], [TemplateValue]> { zip(storage.names, storage.values) }

    /// The value of `name`; of a name given twice, the later (a page's frame over its view).
    public subscript(name: String) -> TemplateValue? { self[name, Self.fingerprint(name)] }

    /// `self[name]` with the name's fingerprint already made (a template's names are, once, when it is parsed).
    subscript(name: String, print: UInt64) -> TemplateValue? {
        let s = storage
        var i = s.prints.count - 1
        while i >= 0 {
            if s.prints[i] == print && s.names[i] == name { return s.values[i] }
            i -= 1
        }
        return nil
    }

    public static func == (a: TemplateObject, b: TemplateObject) -> Bool {
        a.storage === b.storage || (a.storage.names == b.storage.names && a.storage.values == b.storage.values)
    }
}
