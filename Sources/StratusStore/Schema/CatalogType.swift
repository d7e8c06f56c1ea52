import StratusModel

/// A record type as stored: its table and fields, and the SQL the hot paths reuse.
struct CatalogType: Sendable, KnownFields {
    var id: Int64
    var name: String
    var fields: [CatalogField] {
        didSet { indexFields() }
    }
    var grants: [String: Permission]
    /// Indexed system fields (`___createTime` …), kept apart because they have no column of their own.
    var systemFields: [FieldSchema]

    var table: String { "t\(id)" }
    /// Whether `name` is a record type's table (`t` and its id).
    static func isTableName(_ name: String) -> Bool {
        name.utf8.count >= 2 && name.utf8.count <= 20 && name.hasPrefix("t") && name.utf8.dropFirst().allSatisfy { $0 >= 48 && $0 <= 57 }
    }
    /// The sequence PostgreSQL made for the table's identity column: it names it `<table>_<column>_seq`, and no other
    /// relation of an environment's schema takes that name (`CatalogTypeSequenceTests` holds it to it). Naming it
    /// spares each id reservation `pg_get_serial_sequence`, a catalog search per call.
    var idSequence: String { "\(table)_id_seq" }

    init(id: Int64, name: String, fields: [CatalogField], grants: [String: Permission], systemFields: [FieldSchema]) {
        self.id = id
        self.name = name
        self.fields = fields
        self.grants = grants
        self.systemFields = systemFields
        indexFields()
    }

    private mutating func indexFields() {
        fieldIndex = Dictionary(uniqueKeysWithValues: fields.enumerated().map { ($1.name, $0) })
        selectAllColumns = ""
        selectAllColumns = RecordRowCodec.selectList(self, fields: fields)
    }

    func field(named name: String) -> CatalogField? { fieldIndex[name].map { fields[$0] } }
    func fieldType(named name: String) -> FieldType? { fieldIndex[name].map { fields[$0].schema.type } }

    /// Field name → position in `fields`; kept in step by `didSet`, so lookups on the write path are hashed.
    private(set) var fieldIndex: [String: Int] = [:]
    /// `RecordRowCodec.selectList` of every field, kept in step by `didSet`: each query page would build it again.
    private(set) var selectAllColumns = ""

    var schema: RecordTypeSchema {
        RecordTypeSchema(name: name, fields: systemFields + fields.map(\.schema), grants: grants)
    }

    /// The system columns, in the order `RecordRowDecoder` reads them.
    static let systemColumns = RecordColumn.allCases.map(\.name)

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
