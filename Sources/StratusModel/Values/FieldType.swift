/// A field's declared type: a scalar or a `LIST<scalar>`.
/// `encrypted` and `numberPreferred` only matter to the schema language, which must print back what it read.
public struct FieldType: Hashable, Sendable, Codable, CustomStringConvertible {
    public var scalar: ScalarType
    public var isList, encrypted: Bool
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
        guard let t = Self.wireNames[wireName] else { return nil }
        self = t
    }

    /// Every wire spelling (`STRING`, `INT64_LIST`, `ASSETID` and `ASSET`, …) and its type, made once: reading
    /// a record looks up a type per field value, and trimming `_LIST` and matching a raw value cost more.
    private static let wireNames: [String: FieldType] = {
        var names: [String: FieldType] = [:]
        for s in ScalarType.allCases {
            for list in [false, true] {
                for spelling in Set([s.rawValue,
                                     s.wireName]) { names[list ? spelling + "_LIST" : spelling] = FieldType(s,
                        isList: list) }
            }
        }
        return names
    }()
}
