/// A database on either backend: reads and writes (each a transaction) handed a session. The store's control
/// data lives in one; GRDB's `DatabaseWriter`/`DatabaseReader` split is the model, cut down to what the store uses.
protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    func read<T>(_ body: (any SQLSession) throws -> T) throws -> T
    func write<T>(_ body: (any SQLSession) throws -> T) throws -> T
    func close()
}
