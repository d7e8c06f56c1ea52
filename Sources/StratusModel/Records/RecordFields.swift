/// A record's fields by name: one array kept sorted by name, read like a dictionary.
///
/// A query page builds hundreds of records of a dozen fields each, and frees them again. As a `Dictionary`, every
/// field was hashed on the way in and every record's table was allocated, then walked bucket by bucket to be freed.
/// Here a record's fields are one allocation, and the store hands them over in name order
/// (`RecordSink.takesFieldsInNameOrder`), so each is appended after one comparison. Lookups are a binary search.
/// Equality and hashing follow the sorted order, so two records with the same fields are equal however they were
/// built, and iteration is in name order, the same every time.
public struct RecordFields: Hashable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: FieldValue)
    public typealias Index = Int

    private var entries: ContiguousArray<Entry>

    private struct Entry: Hashable, Sendable {
        var key: String
        var value: FieldValue
    }

    public init() { entries = [] }

    public init(minimumCapacity: Int) {
        entries = []
        entries.reserveCapacity(minimumCapacity)
    }

    public init(_ fields: [String: FieldValue]) {
        entries = ContiguousArray(fields.lazy.map { Entry(key: $0.key, value: $0.value) })
        entries.sort { $0.key < $1.key }
    }

    /// The later of two values for one name wins, as assigning them in turn would. Sorted once, not kept sorted
    /// per field: a client's record of a thousand fields in no order costs one sort.
    public init<S: Sequence>(_ fields: S) where S.Element == (key: String, value: FieldValue) {
        var numbered = fields.enumerated().map { n in
            (order: n.offset, entry: Entry(key: n.element.key, value: n.element.value))
        }
        numbered.sort { $0.entry.key < $1.entry.key || ($0.entry.key == $1.entry.key && $0.order < $1.order) }
        entries = []
        entries.reserveCapacity(numbered.count)
        for (i, n) in numbered.enumerated() where i + 1 == numbered.count || numbered[i + 1].entry.key != n.entry.key {
            entries.append(n.entry)
        }
    }

    public init(dictionaryLiteral elements: (String, FieldValue)...) {
        if elements.isEmpty { self.init() } else { self.init(elements.lazy.map { (key: $0.0, value: $0.1) }) }
    }

    // MARK: Collection (in name order)

    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> Element { (entries[position].key, entries[position].value) }

    /// The names, in order.
    public var keys: some RandomAccessCollection<String> { entries.lazy.map(\.key) }
    /// The values, in their names' order.
    public var values: some RandomAccessCollection<FieldValue> { entries.lazy.map(\.value) }

    /// The same fields as a dictionary, for callers that keep them as one.
    public var dictionary: [String: FieldValue] {
        Dictionary(uniqueKeysWithValues: entries.lazy.map { ($0.key, $0.value) })
    }

    // MARK: By name

    public subscript(key: String) -> FieldValue? {
        get {
            let (i, found) = position(of: key)
            return found ? entries[i].value : nil
        }
        set {
            let (i, found) = position(of: key)
            switch (newValue, found) {
            case (let v?, true): entries[i].value = v
            case (let v?, false):
                if i == entries.count { entries.append(Entry(key: key, value: v)) }
                else { entries.insert(Entry(key: key, value: v), at: i) }
            case (nil, true): entries.remove(at: i)
            case (nil, false): break
            }
        }
    }

    public subscript(key: String, default defaultValue: @autoclosure () -> FieldValue) -> FieldValue {
        get { self[key] ?? defaultValue() }
        set { self[key] = newValue }
    }

    @discardableResult
    public mutating func updateValue(_ value: FieldValue, forKey key: String) -> FieldValue? {
        let old = self[key]
        self[key] = value
        return old
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> FieldValue? {
        let (i, found) = position(of: key)
        guard found else { return nil }
        return entries.remove(at: i).value
    }

    public mutating func removeAll(keepingCapacity: Bool = false) {
        entries.removeAll(keepingCapacity: keepingCapacity)
    }

    public func index(forKey key: String) -> Int? {
        let (i, found) = position(of: key)
        return found ? i : nil
    }

    /// Where `key` is, or where it would go. The last name is tried first: fields arriving in order append.
    private func position(of key: String) -> (Int, found: Bool) {
        guard !entries.isEmpty else { return (0, false) }
        if entries[entries.count - 1].key < key { return (entries.count, false) }
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].key < key { low = mid + 1 } else { high = mid }
        }
        return (low, low < entries.count && entries[low].key == key)
    }

    // MARK: Dictionary's transforms, keeping the type

    /// Which of two values for one name a merge keeps (the old one, then the new one).
    public typealias Combine = (FieldValue, FieldValue) throws -> FieldValue

    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> RecordFields {
        var out = self
        try out.entries.removeAll { try !isIncluded(($0.key, $0.value)) }
        return out
    }

    public func mapValues(_ transform: (FieldValue) throws -> FieldValue) rethrows -> RecordFields {
        var out = self
        for i in out.entries.indices { out.entries[i].value = try transform(out.entries[i].value) }
        return out
    }

    public func compactMapValues(_ transform: (FieldValue) throws -> FieldValue?) rethrows -> RecordFields {
        var out = RecordFields(minimumCapacity: count)
        for e in entries { if let v = try transform(e.value) { out.entries.append(Entry(key: e.key, value: v)) } }
        return out
    }

    public mutating func merge<S: Sequence>(_ other: S, uniquingKeysWith combine: Combine) rethrows
        where S.Element == (key: String, value: FieldValue) {
        for (key, value) in other { self[key] = try self[key].map { try combine($0, value) } ?? value }
    }

    public func merging<S: Sequence>(_ other: S, uniquingKeysWith combine: Combine) rethrows
        -> RecordFields where S.Element == (key: String, value: FieldValue) {
        var out = self
        try out.merge(other, uniquingKeysWith: combine)
        return out
    }

    /// Both sorted: one pass over the two, however many names are new.
    public func merging(_ other: RecordFields, uniquingKeysWith combine: Combine) rethrows
        -> RecordFields {
        var out = RecordFields(minimumCapacity: count + other.count)
        var i = entries.startIndex, j = other.entries.startIndex
        while i < entries.endIndex || j < other.entries.endIndex {
            if j == other.entries.endIndex || (i < entries.endIndex && entries[i].key < other.entries[j].key) {
                out.entries.append(entries[i]); i += 1
            } else if i == entries.endIndex || other.entries[j].key < entries[i].key {
                out.entries.append(other.entries[j]); j += 1
            } else {
                let value = try combine(entries[i].value, other.entries[j].value)
                out.entries.append(Entry(key: entries[i].key, value: value))
                i += 1; j += 1
            }
        }
        return out
    }

    public func merging(_ other: [String: FieldValue], uniquingKeysWith combine: Combine) rethrows
        -> RecordFields {
        var out = self
        try out.merge(other, uniquingKeysWith: combine)
        return out
    }
}

extension RecordFields: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { dictionary.description }
    public var debugDescription: String { dictionary.debugDescription }
}
