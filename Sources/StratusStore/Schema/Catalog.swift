import StratusModel

/// One environment's schema as stored, loaded once and reused until `generation` moves.
struct Catalog: Sendable {
    var generation: Int64
    var roles: [String]
    var types: [CatalogType]
    /// Composite indexes Stratus built for query shapes (not part of the schema: a deploy never copies them).
    var autoIndexes: [AutoIndex] = []
    private(set) var index: [String: Int] = [:]
    /// The ENCRYPTED fields of each type that has any, for answers that mark them (see `WireEncoding`).
    private(set) var encryptedFields: [String: Set<String>] = [:]

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

    func type(named name: String) -> CatalogType? { index[name].map { types[$0] } }
    func type(id: Int64) -> CatalogType? { types.first { $0.id == id } }

    var schema: Schema { Schema(roles: roles, recordTypes: types.map(\.schema)) }

    func autoIndexes(of type: String) -> [AutoIndex] { autoIndexes.filter { $0.recordType == type } }
}
