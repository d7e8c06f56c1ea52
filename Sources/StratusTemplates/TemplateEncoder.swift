/// Turns a page's view struct into what a template sees (`TemplateValue`), so that pages are typed: a view's
/// members are its template's names, and a member left out is a compile error, not an empty spot on a page.
/// Strings, flags and numbers become text; arrays lists; structs objects; nil members are left out (a section
/// over them does not render). A member that already is a `TemplateValue` (a cached header) is kept as it is.
public enum TemplateEncoder {
    public static func encode<T: Encodable>(_ value: T) -> TemplateValue {
        // Encoding into this encoder cannot fail: no container refuses a value.
        child(value, coding: false) ?? .object(TemplateObject([:] as [String: String]))
    }

    /// `encode` through `Encodable` alone, with no `TemplateRepresentable` shortcut at any depth: what a type's
    /// shortcut must equal (its tests compare the two).
    public static func encodeByCoding<T: Encodable>(_ value: T) -> TemplateValue {
        child(value, coding: true) ?? .object(TemplateObject([:] as [String: String]))
    }

    /// Where one value ends up once encoded (a container writes into its parent's box when it is done).
    final class Box {
        /// Whether `TemplateRepresentable` shortcuts are passed by (`encodeByCoding`).
        let coding: Bool
        init(coding: Bool) { self.coding = coding }
        var value: TemplateValue?
        var entries: ContiguousArray<TemplateObject.Entry> = []
        var items: [TemplateValue] = []
        enum Kind { case none, object, list }
        var kind = Kind.none

        func finish() -> TemplateValue? {
            switch kind {
            case .object: return .object(TemplateObject(entries: entries))
            case .list: return .list(items)
            case .none: return value
            }
        }
    }

    struct ValueEncoder: Encoder {
        let box: Box
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            box.kind = .object
            return KeyedEncodingContainer(Keyed<Key>(box: box))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { box.kind = .list; return Unkeyed(box: box) }
        func singleValueContainer() -> any SingleValueEncodingContainer { Single(box: box) }
    }

    static func child<T: Encodable>(_ value: T, coding: Bool) -> TemplateValue? {
        // By the static type first: comparing metadata costs nothing, where a dynamic cast to a protocol
        // (`any BinaryInteger`) searched conformances for every struct and array of every view.
        if T.self == String.self { return .string(value as! String) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if T.self == TemplateValue.self { return value as? TemplateValue }
        if T.self == Int.self { return .string(String(value as! Int)) }
        if T.self == Int64.self { return .string(String(value as! Int64)) }
        if T.self == Double.self { return .string(String(value as! Double)) }
        // A view drawn by the thousand (a record page's fields) builds its value by hand: through `Encodable`, each
        // struct took a container box, an encoder and a generic call per member.
        if !coding, let r = value as? any TemplateRepresentable { return r.templateValue }
        let box = Box(coding: coding)
        try? value.encode(to: ValueEncoder(box: box))
        return box.finish()
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let box: Box
        var codingPath: [any CodingKey] { [] }
        func put(_ v: TemplateValue?, _ key: Key) {
            guard let v else { return }
            // A name set twice (a page's frame over its view) is kept twice: `TemplateObject` finds the later.
            if box.entries.isEmpty { box.entries.reserveCapacity(8) }
            box.entries.append(TemplateObject.Entry(key.stringValue, v))
        }
        mutating func encodeNil(forKey key: Key) {}
        mutating func encode(_ value: Bool, forKey key: Key) { put(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) { put(.string(value), key) }
        mutating func encode(_ value: Int, forKey key: Key) { put(.string(String(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) { put(.string(String(value)), key) }
        mutating func encode(_ value: Double, forKey key: Key) { put(.string(String(value)), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
            put(TemplateEncoder.child(value, coding: box.coding), key)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                            forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            fatalError("views nest structs, not containers")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { fatalError("views nest arrays, not containers") }
        mutating func superEncoder() -> any Encoder { fatalError("views have no superclass") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { fatalError("views have no superclass") }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let box: Box
        var codingPath: [any CodingKey] { [] }
        var count: Int { box.items.count }
        mutating func encodeNil() {}
        mutating func encode(_ value: String) { box.items.append(.string(value)) }
        mutating func encode(_ value: Bool) { box.items.append(.bool(value)) }
        mutating func encode(_ value: Int) { box.items.append(.string(String(value))) }
        mutating func encode<T: Encodable>(_ value: T) {
            if let v = TemplateEncoder.child(value, coding: box.coding) { box.items.append(v) }
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            fatalError("views nest structs, not containers")
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("views nest arrays, not containers") }
        mutating func superEncoder() -> any Encoder { fatalError("views have no superclass") }
    }

    struct Single: SingleValueEncodingContainer {
        let box: Box
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil() {}
        mutating func encode(_ value: String) { box.value = .string(value) }
        mutating func encode(_ value: Bool) { box.value = .bool(value) }
        mutating func encode(_ value: Int) { box.value = .string(String(value)) }
        mutating func encode(_ value: Int64) { box.value = .string(String(value)) }
        mutating func encode(_ value: Double) { box.value = .string(String(value)) }
        mutating func encode<T: Encodable>(_ value: T) {
            // Other numbers (an Int32, a UInt8) encode themselves here, as a single value: text, not a new box.
            if let n = value as? any BinaryInteger { box.value = .string("\(n)"); return }
            if let f = value as? Float { box.value = .string(String(f)); return }
            box.value = TemplateEncoder.child(value, coding: box.coding)
        }
    }
}
