/// A database on either backend: reads and writes (each a transaction) handed a session. The store's control
/// data lives in one; GRDB's `DatabaseWriter`/`DatabaseReader` split is the model, cut down to what the store uses.
protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    func read<T>(_ body: (any SQLSession) throws -> T) throws -> T
    func write<T>(_ body: (any SQLSession) throws -> T) throws -> T
    /// A read of one statement, with no transaction around it: one statement sees one moment on its own, on either
    /// engine. For reads every request makes (a console session), where BEGIN and COMMIT cost as much as the read.
    func readStatement<T>(_ body: (any SQLSession) throws -> T) throws -> T
    func close()
    /// A read that sees one snapshot from its first statement to its last: on SQLite every read does; on PostgreSQL
    /// a REPEATABLE READ transaction, which takes `snapshot` (one `exportingSnapshot` exported) when given, so that
    /// reads on several connections see the same moment.
    func snapshotRead<T>(_ snapshot: String?, _ body: (any SQLSession) throws -> T) throws -> T
    /// A snapshot read that exports its snapshot (PostgreSQL; nil on SQLite) for others while `body` runs.
    func exportingSnapshot<T>(_ body: (any SQLSession, String?) throws -> T) throws -> T
}

extension SQLDatabase {
    func readStatement<T>(_ body: (any SQLSession) throws -> T) throws -> T { try read(body) }
    func snapshotRead<T>(_ snapshot: String?, _ body: (any SQLSession) throws -> T) throws -> T { try read(body) }
    func exportingSnapshot<T>(_ body: (any SQLSession, String?) throws -> T) throws -> T { try read { try body($0,
            nil) } }
}
