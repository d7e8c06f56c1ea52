/// Header fields in arrival order. Names compare case-insensitively (stored lowercased).
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}
    /// Room for `capacity` fields (the parser counts a head's lines first).
    init(capacity: Int) { fields.reserveCapacity(capacity) }
    public init(_ pairs: [(String, String)]) { for (n, v) in pairs { add(n, v) } }

    public subscript(_ name: String) -> String? {
        get {
            let n = Self.lowercased(name)
            return fields.first { $0.name == n }?.value
        }
        set {
            let n = name.lowercased()
            fields.removeAll { $0.name == n }
            if let newValue { fields.append((n, newValue)) }
        }
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name.lowercased(), value)) }

    /// Adds a field whose name is lower case already (the request parser makes it so).
    mutating func add(lowercased name: String, _ value: String) { fields.append((name, value)) }

    /// The name as stored; callers almost always ask in lower case already, which costs no copy.
    @inline(__always) static func lowercased(_ name: String) -> String {
        name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? name.lowercased() : name
    }

    public func values(_ name: String) -> [String] {
        let n = Self.lowercased(name)
        return fields.filter { $0.name == n }.map(\.value)
    }

    /// How many fields have this name (no array built: every request asks it of Host).
    public func count(of name: String) -> Int {
        let n = Self.lowercased(name)
        var c = 0
        for f in fields where f.name == n { c += 1 }
        return c
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}
