import Foundation
import StratusModel

/// The portable backup: a logical copy of a whole store — containers, accounts, tokens and keys, and every
/// environment's schema, records, zones with their change tokens, subscriptions, shares and assets — taken from
/// either engine while it serves, and restored into either. It is a SQLite data directory written row by row by
/// `StoreMigration` from one snapshot of the source (on PostgreSQL one exported REPEATABLE READ snapshot for the
/// whole store), then sealed as a `Backup` with its checksummed manifest; so `stratus restore` rebuilds a data
/// directory from it as from any backup, and restoring it into PostgreSQL is the same migration the other way. A
/// backup is also a migration, of one store or (with `stratus migrate`'s rules) between engines.
public enum PortableBackup {
    /// Writes the portable backup of `store` into `destination` (created; must not exist or be empty).
    @discardableResult
    public static func create(from store: ServerStore, to destination: URL, progress: (String) -> Void = { _ in }) throws(StratusError) -> BackupManifest {
        let staging = try stagingDirectory(beside: destination)
        defer { try? FileManager.default.removeItem(at: staging) }
        let copy = try ServerStore(dataDirectory: staging, durability: .relaxed)
        do {
            let report = try StoreMigration.copy(from: store, to: copy, progress: progress)
            progress("copied \(report.containers) containers, \(report.records) records, \(report.assets) assets")
        } catch {
            copy.close()
            throw error
        }
        copy.close()
        return try Backup.create(data: staging, to: destination, progress: progress)
    }

    /// Checks a backup against its manifest and copies it into `store` (which must hold nothing yet): a PostgreSQL
    /// store, or a data directory (for which `Backup.restore` alone does the same).
    @discardableResult
    public static func restore(from backup: URL, into store: ServerStore, progress: (String) -> Void = { _ in }) throws(StratusError) -> BackupManifest {
        let staging = try stagingDirectory(beside: backup)
        defer { try? FileManager.default.removeItem(at: staging) }
        let manifest = try Backup.restore(from: backup, to: staging)
        let source = try ServerStore(dataDirectory: staging, durability: .relaxed)
        defer { source.close() }
        _ = try StoreMigration.copy(from: source, to: store, progress: progress)
        return manifest
    }

    /// A fresh directory next to `place` (the same file system), for the data directory a backup is staged in.
    private static func stagingDirectory(beside place: URL) throws(StratusError) -> URL {
        let parent = place.standardizedFileURL.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".stratus-staging-\(UUID().uuidString)", isDirectory: true)
        do { try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true) } catch {
            throw StratusError.badRequest("cannot make a staging directory in \(parent.path): \(error.localizedDescription)")
        }
        return staging
    }
}
