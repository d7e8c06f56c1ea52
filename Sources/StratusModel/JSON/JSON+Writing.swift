
extension JSONWriter {
    /// Writes a parsed JSON value back out (keys sorted, so equal documents serialize alike).
    public mutating func value(_ j: JSON) {
        switch j {
        case .null: null()
        case .bool(let b): bool(b)
        case .int(let i): int(i)
        case .double(let d): double(d)
        case .string(let s): string(s)
        case .array(let a): beginArray(); for x in a { value(x) }; endArray()
        case .object(let o):
            beginObject()
            for k in o.keys.sorted() { key(k); value(o[k]!) }
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
