import Foundation
import GRDB

/// Damages a SQLite file under a running server, as a broken or foreign database would leave it: the tables chosen
/// are renamed (`<name>_gone`), so that what the server asks of them fails with SQLite's own error text — the
/// text the redaction tests look for in answers.
public enum DamagedTables {
    /// What a storage error's text holds that no answer may show.
    public static let leaks = ["no such table", "SQLite", "sqlite", "SELECT", "INSERT", "_gone"]

    public static func rename(in file: URL, _ names: (String) -> Bool) throws {
        var config = Configuration()
        config.busyMode = .timeout(60)  // the running server may hold the file's lock for a moment
        let queue = try DatabaseQueue(path: file.path, configuration: config)
        try queue.writeWithoutTransaction { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            // FTS shadow tables follow their virtual table.
            for t in tables where names(t) && !t.contains("_fts_") { try db.execute(sql: "ALTER TABLE \"\(t)\" RENAME TO \"\(t)_gone\"") }
        }
    }

    /// Runs SQL on a SQLite file behind the store's back (a test that breaks one of Stratus's invariants).
    public static func execute(in file: URL, _ sql: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(60)
        let queue = try DatabaseQueue(path: file.path, configuration: config)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }
}
