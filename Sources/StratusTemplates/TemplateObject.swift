/// A template object's names and values, in one array of entries: one allocation per object (a page builds
/// hundreds of them, and names, values, their fingerprints and a class around them were four). Objects here hold a
/// handful to a few dozen names, most of them short enough for Swift's inline small strings; comparing those in a
/// scan is cheaper than hashing every name a template looks up (hashing was a visible share of rendering).
public struct TemplateObject: Sendable, Equatable {
    /// One name and its value.
    public struct Entry: Sendable, Equatable {
        let name: String
        /// The name's `fingerprint`: a lookup compares integers, and strings only where those agree (a template's
        /// section looks a name up in every enclosing object before it finds it, or does not).
        let print: UInt64
        var value: TemplateValue

        public init(_ name: String, _ value: TemplateValue) {
            self.name = name
            print = TemplateObject.fingerprint(name)
            self.value = value
        }
    }

    private var entries: ContiguousArray<Entry>

    public init(_ d: [String: String]) {
        entries = ContiguousArray(d.map { Entry($0.key, .string($0.value)) })
    }

    public init(names: [String], values: [TemplateValue]) {
        entries = ContiguousArray(zip(names, values).map { Entry($0, $1) })
    }

    /// The entries as they are (a builder that made them in order; a name given twice, twice).
    public init(entries: ContiguousArray<Entry>) { self.entries = entries }

    /// A name's length, first two bytes and last byte: names that differ almost always differ here, and it costs
    /// a few instructions to make for every name of every object.
    @inline(__always) static func fingerprint(_ name: String) -> UInt64 {
        func make(_ count: Int, _ first: UInt8, _ second: UInt8, _ last: UInt8) -> UInt64 {
            UInt64(truncatingIfNeeded: count) << 24 | UInt64(first) << 16 | UInt64(second) << 8 | UInt64(last)
        }
        if let print = name.utf8.withContiguousStorageIfAvailable({ b in
            b.isEmpty ? 0 : make(b.count, b[0], b.count > 1 ? b[1] : 0, b[b.count - 1])
        }) { return print }
        let utf8 = name.utf8
        var it = utf8.makeIterator()
        return make(utf8.count, it.next() ?? 0, it.next() ?? 0, utf8.last ?? 0)
    }

    /// The object with `name` set to `value` (replaced when it is there).
    public func setting(_ name: String, _ value: TemplateValue) -> TemplateObject { setting([(name, value)]) }

    /// The object with each of `changes` set in turn (one copy of the entries for them all).
    public func setting(_ changes: [(String, TemplateValue)]) -> TemplateObject {
        var copy = self
        copy.entries.reserveCapacity(entries.count + changes.count)
        for (name, value) in changes {
            if let i = copy.entries.lastIndex(where: { $0.name == name }) { copy.entries[i].value = value } else {
                copy.entries.append(Entry(name, value))
            }
        }
        return copy
    }

    /// Names and values in the order they were given (a name given twice, twice).
    public var members: [(name: String, value: TemplateValue)] { entries.map { ($0.name, $0.value) } }

    /// The value of `name`; of a name given twice, the later (a page's frame over its view).
    public subscript(name: String) -> TemplateValue? { self[name, Self.fingerprint(name)] }

    /// `self[name]` with the name's fingerprint already made (a template's names are, once, when it is parsed).
    subscript(name: String, print: UInt64) -> TemplateValue? {
        entries.withUnsafeBufferPointer { e in
            var i = e.count - 1
            while i >= 0 {
                if e[i].print == print && e[i].name == name { return e[i].value }
                i -= 1
            }
            return nil
        }
    }
}
