
extension JSONWriter {
    /// Writes a JSON value out: with `sortedKeys` (the default) equal documents serialize alike; a request body
    /// is written in the dictionary's own order, which costs no sort.
    public mutating func value(_ j: JSON, sortedKeys: Bool = true) {
        switch j {
        case .null: null()
        case .bool(let b): bool(b)
        case .int(let i): int(i)
        case .double(let d): double(d)
        case .string(let s): string(s)
        case .array(let a):
            beginArray()
            for x in a { value(x, sortedKeys: sortedKeys) }
            endArray()
        case .object(let o):
            beginObject()
            if sortedKeys {
                for k in o.keys.sorted() { key(k); value(o[k]!, sortedKeys: true) }
            } else {
                for (k, v) in o { key(k); value(v, sortedKeys: false) }
            }
            endObject()
        }
    }
}

extension JSON {
    public var serialized: String {
        var w = JSONWriter(capacity: 256)
        w.value(self)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension JSON: ExpressibleByDictionaryLiteral {
    /// An object written as a literal (`["restored": .string(id)]`), for answers built in code.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
