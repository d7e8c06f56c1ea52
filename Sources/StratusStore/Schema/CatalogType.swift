import StratusModel

/// A record type as stored: its table and fields, and the SQL the hot paths reuse.
struct CatalogType: Sendable {
    var id: Int64
    var name: String
    var fields: [CatalogField]
    var grants: [String: Permission]
    /// Indexed system fields (`___createTime` …), kept apart because they have no column of their own.
    var systemFields: [FieldSchema]

    var table: String { "t\(id)" }

    func field(named name: String) -> CatalogField? { fields.first { $0.name == name } }

    var schema: RecordTypeSchema {
        RecordTypeSchema(name: name, fields: systemFields + fields.map(\.schema), grants: grants)
    }

    /// The system columns, in the order `RecordRowDecoder` reads them.
    static let systemColumns = ["id", "zone_id", "record_name", "change_tag", "created_ts", "created_by", "created_device",
                                "modified_ts", "modified_by", "modified_device"]

    /// The physical column of a system field, and the index that serves it.
    static func column(of system: SystemField) -> String? {
        switch system {
        case .recordName: "record_name"
        case .createdTimestamp: "created_ts"
        case .modifiedTimestamp: "modified_ts"
        case .createdUserRecordName: "created_by"
        case .modifiedUserRecordName: "modified_by"
        case .share, .parent: nil
        }
    }

    func systemIndexName(_ system: SystemField) -> String { "\(table)_sys_\(system.rawValue)" }

    /// Indexes of a system field: the record name is always indexed (it identifies records).
    func indexes(of system: SystemField) -> FieldIndexes {
        let declared = systemFields.first { $0.name == system.schemaName }?.indexes ?? []
        return declared
    }
}
