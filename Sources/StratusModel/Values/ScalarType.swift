/// The element types CloudKit fields can hold; a field is one of these or a list of one.
public enum ScalarType: String, Sendable, CaseIterable, Codable, Hashable {
    case string = "STRING"
    case int64 = "INT64"
    case double = "DOUBLE"
    case bytes = "BYTES"
    case timestamp = "TIMESTAMP"
    case reference = "REFERENCE"
    case asset = "ASSET"
    case location = "LOCATION"

    /// The wire name CloudKit Web Services uses in a value's `type` (assets travel as `ASSETID`).
    public var wireName: String { self == .asset ? "ASSETID" : rawValue }
}
