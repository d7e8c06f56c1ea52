/// A field's declared type: a scalar or a `LIST<scalar>`.
/// `encrypted` and `numberPreferred` only matter to the schema language, which must print back what it read.
public struct FieldType: Hashable, Sendable, Codable, CustomStringConvertible {
    public var scalar: ScalarType
    public var isList: Bool
    public var encrypted: Bool
    /// Declared as `NUMBER PREFERRED AS …` (or bare `NUMBER`) rather than INT64/DOUBLE.
    public var numberPreferred: Bool

    public init(_ scalar: ScalarType, isList: Bool = false, encrypted: Bool = false, numberPreferred: Bool = false) {
        self.scalar = scalar
        self.isList = isList
        self.encrypted = encrypted
        self.numberPreferred = numberPreferred
    }

    public static func list(_ s: ScalarType) -> FieldType { FieldType(s, isList: true) }

    /// Two declarations store the same kind of value; the schema language's spelling aside.
    public func storesSameValues(as other: FieldType) -> Bool { scalar == other.scalar && isList == other.isList }

    /// `STRING`, `INT64_LIST`, …: the wire spelling of a value of this type.
    public var wireName: String { isList ? scalar.wireName + "_LIST" : scalar.wireName }

    /// The schema-language spelling, `LIST<STRING>`, `ENCRYPTED BYTES`, `NUMBER PREFERRED AS INT64`.
    public var description: String {
        var base = scalar.rawValue
        if numberPreferred { base = "NUMBER PREFERRED AS \(scalar.rawValue)" }
        if encrypted { base = "ENCRYPTED \(base)" }
        return isList ? "LIST<\(base)>" : base
    }

    /// Parses a wire type name such as `STRING_LIST` or `ASSETID`.
    public init?(wireName: String) {
        var name = wireName
        var list = false
        if name.hasSuffix("_LIST") { list = true; name.removeLast(5) }
        if name == "ASSETID" || name == "ASSET" { self.init(.asset, isList: list); return }
        guard let s = ScalarType(rawValue: name) else { return nil }
        self.init(s, isList: list)
    }
}
