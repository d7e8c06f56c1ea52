import StratusModel

/// One environment's schema as stored, loaded once and reused until `generation` moves.
struct Catalog: Sendable {
    var generation: Int64
    var roles: [String]
    var types: [CatalogType] {
        // Statements made for the types as they were may name columns that are gone (or not there yet).
        didSet { statements = nil }
    }
    /// Composite indexes Stratus built for query shapes (not part of the schema: a deploy never copies them).
    var autoIndexes: [AutoIndex] = []
    private(set) var index: [String: Int] = [:]
    /// The ENCRYPTED fields of each type that has any, for answers that mark them (see `WireEncoding`).
    private(set) var encryptedFields: [String: Set<String>] = [:]
    /// Each type's write statements, in the dialect of the store the catalog was read from or applied to
    /// (`prepareStatements`): made once per schema version, where every write used to make them again.
    private var statements: (dialect: SQLDialect, byType: [Int64: TypeStatements])?

    init(generation: Int64, roles: [String], types: [CatalogType]) {
        self.generation = generation
        self.roles = roles
        self.types = types
        reindex()
    }

    mutating func reindex() {
        index = Dictionary(uniqueKeysWithValues: types.enumerated().map { ($1.name, $0) })
        encryptedFields = [:]
        for t in types {
            let names = Set(t.fields.filter { $0.type.encrypted }.map(\.name))
            if !names.isEmpty { encryptedFields[t.name] = names }
        }
    }

    /// Makes every type's statements for `dialect` (`SchemaStorage` does, for the catalogs it loads and changes);
    /// changing `types` drops them.
    mutating func prepareStatements(_ dialect: SQLDialect) {
        statements = (dialect, Dictionary(uniqueKeysWithValues: types.map { ($0.id, TypeStatements($0, dialect)) }))
    }

    /// `type`'s statements as prepared, if they were for `dialect`.
    func statements(of type: CatalogType, _ dialect: SQLDialect) -> TypeStatements? {
        guard let statements, statements.dialect == dialect else { return nil }
        return statements.byType[type.id]
    }

    func type(named name: String) -> CatalogType? { index[name].map { types[$0] } }
    func type(id: Int64) -> CatalogType? { types.first { $0.id == id } }

    var schema: Schema { Schema(roles: roles, recordTypes: types.map(\.schema)) }

    func autoIndexes(of type: String) -> [AutoIndex] { autoIndexes.filter { $0.recordType == type } }
}
