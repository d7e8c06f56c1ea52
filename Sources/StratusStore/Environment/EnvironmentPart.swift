import Foundation
import StratusModel

/// A store of one kind of an environment's data (records, zones, subscriptions, …). Each holds the environment's
/// `EnvironmentDatabase` and the caches of its own data; this protocol lets its methods say `read`, `write`,
/// `catalog` or `container` as if they were the database's own.
protocol EnvironmentPart: Sendable {
    var core: EnvironmentDatabase { get }
}

extension EnvironmentPart {
    var container: ContainerID { core.container }
    var environment: ContainerEnvironment { core.environment }
    var signer: TokenSigner { core.signer }
    var sqlite: SQLiteFile? { core.sqlite }
    var peers: CacheInvalidation? { core.peers }
    var postgresSchema: String? { core.postgresSchema }
    var files: AssetFiles { core.files }

    func read<T>(_ body: (any SQLSession, Catalog) throws -> T) throws(StratusError) -> T { try core.read(body) }
    func write<T>(_ body: (any SQLSession,
                           inout Catalog) throws -> T) throws(StratusError) -> T { try core.write(body) }
    func readCheckingCatalog<T>(_ body: (any SQLSession,
                                         (Int64) throws -> Catalog) throws -> T) throws(StratusError) -> T {
        try core.readCheckingCatalog(body)
    }
    func readStatementCheckingCatalog<T>(_ body: (any SQLSession,
                                                  (Int64) -> Catalog?) throws -> T) throws(StratusError) -> T {
        try core.readStatementCheckingCatalog(body)
    }
    func sqliteRead<T>(_ body: (any SQLSession,
                                Catalog) throws -> T) throws(StratusError) -> T { try core.sqliteRead(body) }
    func sqliteWrite<T>(_ body: (any SQLSession,
                                 inout Catalog) throws -> T) throws(StratusError) -> T { try core.sqliteWrite(body) }
    func catalog(_ s: any SQLSession) throws -> Catalog { try core.catalog(s) }

    /// Deletes a user's rows of a table keyed by user and the web token (by its hash) they were made with: those
    /// made with `webToken`, or all of the user's when it is nil (sign-out ends every session's).
    func deleteUserRows(of table: StaticString, user: String, madeWith webToken: String?) throws(StratusError) {
        try write { s, _ in try SignInBoundRows.end(in: table, user: user, madeWith: webToken, s) }
    }
}
