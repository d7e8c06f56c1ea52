/// The system fields that can be filtered, sorted and indexed: the query names (`systemFieldName`)
/// and the schema-language names (`___createTime`, …) of the same thing.
public enum SystemField: String, Sendable, CaseIterable, Hashable, Codable {
    case recordName
    case createdTimestamp
    case modifiedTimestamp
    case createdUserRecordName
    case modifiedUserRecordName
    case share
    case parent

    /// The implicit field's name in the schema language.
    public var schemaName: String {
        switch self {
        case .recordName: "___recordID"
        case .createdTimestamp: "___createTime"
        case .modifiedTimestamp: "___modTime"
        case .createdUserRecordName: "___createdBy"
        case .modifiedUserRecordName: "___modifiedBy"
        case .share: "___share"
        case .parent: "___parent"
        }
    }

    public var fieldType: FieldType {
        switch self {
        case .createdTimestamp, .modifiedTimestamp: FieldType(.timestamp)
        default: FieldType(.reference)
        }
    }

    public init?(schemaName: String) {
        guard let f = SystemField.allCases.first(where: { $0.schemaName == schemaName }) else { return nil }
        self = f
    }

    /// `___etag` is implicit too but cannot be queried; the schema language still accepts it.
    public static let etagSchemaName = "___etag"
}
