import Foundation
import StratusModel

/// The portable backup: a logical copy of a whole store — containers, accounts, tokens and keys, and every
/// environment's schema, records, zones with their change tokens, subscriptions, shares and assets — taken from
/// either engine while it serves, and restored into either. A backup is also a migration, of one store or between
/// engines.
///
/// Each table is one rows file (`PortableRows`) streamed from one snapshot of the source (on PostgreSQL `COPY` inside
/// one exported REPEATABLE READ snapshot for the whole store; on SQLite one read transaction per file), each asset a
/// file named by its checksum; `manifest.json`, written last, lists every file with its size and SHA-256 and every
/// table with its columns and row count. A restore checks every file first, then loads the control tables, and per
/// environment its tables, its record types' tables from the copied catalog and only then their indexes (each
/// engine its own: full text, locations, list keys), and the assets; each table must hold the rows its file did.
/// Not copied: the request log, telemetry and automatic indexes, which the target gathers afresh.
public enum PortableBackup {
    /// Writes the portable backup of `store` into `destination` (created; must not exist or be empty).
    @discardableResult
    public static func create(from store: ServerStore, to destination: URL, progress: (String) -> Void = { _ in }) throws(StratusError) -> BackupManifest {
        try guarded {
            try Backup.requireEmpty(destination)
            try PrivateFiles.directory(destination)
            var manifest = BackupManifest(format: BackupManifest.portableFormat, takenAt: WallClock.nowMillis(), stratusVersion: StratusVersion.current,
                                          files: [], recordCounts: [:], tables: [])
            var containers: [ContainerID] = []
            func environments(_ snapshot: String?) throws {
                for container in containers {
                    for env in ContainerEnvironment.allCases {
                        try backUp(try store.environment(container, env), snapshot: snapshot, into: destination, &manifest)
                        progress("\(container.rawValue) \(env.rawValue): \(manifest.recordCounts["\(container.rawValue)/\(env.rawValue)"] ?? 0) records")
                    }
                }
            }
            // The control tables, then (on PostgreSQL, inside the same exported snapshot) every environment.
            let exported = try store.control.exportingSnapshot { s, snapshot -> String? in
                for table in StoreMigration.controlTables { try dump(table, owner: "control", from: s, into: destination, &manifest) }
                progress("control data: \(StoreMigration.controlTables.count) tables")
                containers = try ContainerRows.all(s).map(\.id)
                if let snapshot { try environments(snapshot) }
                return snapshot
            }
            if exported == nil { try environments(nil) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(manifest).write(to: destination.appendingPathComponent("manifest.json"), options: .atomic)
            PrivateFiles.secure(destination)
            return manifest
        }
    }

    /// An environment's tables (its record types' too) and then its assets.
    private static func backUp(_ env: EnvironmentStore, snapshot: String?, into destination: URL, _ manifest: inout BackupManifest) throws {
        let owner = "\(env.container.rawValue)/\(env.environment.rawValue)"
        var checksums: [String] = []
        var records: Int64 = 0
        try env.core.database.snapshotRead(snapshot) { s in
            let catalog = try SchemaStorage.load(s)
            for table in StoreMigration.environmentTables { try dump(table, owner: owner, from: s, into: destination, &manifest) }
            for type in catalog.types { records += try dump(type.table, owner: owner, from: s, into: destination, &manifest) }
            checksums = try AssetRows.checksums(s)
        }
        manifest.recordCounts[owner] = records
        for checksum in checksums {
            guard let data = env.assets.assetContent(checksum: checksum), let name = AssetFiles.hex(fromChecksum: checksum) else {
                throw StratusError(.internalError, "asset \(checksum.prefix(64)) of \(owner) has no content in the source")
            }
            let path = "containers/\(owner)-assets/\(name)"
            let url = destination.appendingPathComponent(path)
            try PrivateFiles.directory(url.deletingLastPathComponent())
            try data.write(to: url)
            manifest.files.append(BackupManifest.File(path: path, bytes: Int64(data.count), sha256: Backup.sha256(of: data)))
        }
    }

    /// One table into its rows file; returns its row count.
    @discardableResult
    private static func dump(_ table: String, owner: String, from s: any SQLSession, into destination: URL, _ manifest: inout BackupManifest) throws -> Int64 {
        let columns = try TableCopy.columns(table, s)
        guard !columns.isEmpty else { throw StratusError(.internalError, "the source has no table \(table)") }
        let path = owner == "control" ? "control/\(table).rows" : "containers/\(owner)/\(table).rows"
        var writer = try PortableRows.Writer(destination.appendingPathComponent(path))
        try TableCopy.eachRow(of: table, columns, in: s) { try writer.add($0) }
        let (bytes, sha) = try writer.finish()
        manifest.files.append(BackupManifest.File(path: path, bytes: bytes, sha256: sha))
        manifest.tables?.append(BackupManifest.Table(owner: owner, name: table, columns: columns, rows: writer.rows, path: path))
        return writer.rows
    }

    /// Checks a backup against its manifest and copies it into `store`, which must hold nothing yet: a PostgreSQL
    /// store or a new data directory. Takes both formats: a rows file per table, and the staged data directory the
    /// portable backup was before (copied as `stratus migrate` copies a store).
    @discardableResult
    public static func restore(from backup: URL, into store: ServerStore, progress: (String) -> Void = { _ in }) throws(StratusError) -> BackupManifest {
        let manifest = try Backup.verify(backup)
        guard manifest.format == BackupManifest.portableFormat, let tables = manifest.tables else {
            return try restoreStaged(from: backup, into: store, progress: progress)
        }
        try check(tables, of: manifest)
        try guarded {
            try StoreMigration.requireEmpty(store)
            defer { store.forgetEnvironments() }
            let control = tables.filter { $0.owner == "control" }
            try store.control.write { t in
                for table in control { try load(table, from: backup, into: t) }
                try TableCopy.resetIdentities(t)
            }
            progress("control data: \(control.count) tables")
            var owners: [String] = []
            for table in tables where table.owner != "control" && !owners.contains(table.owner) { owners.append(table.owner) }
            for owner in owners {
                let parts = owner.split(separator: "/", maxSplits: 1).map(String.init)
                guard parts.count == 2, let environment = ContainerEnvironment(rawValue: parts[1]) else { throw StratusError.badRequest("the manifest names an unknown environment \(owner)") }
                let env = try store.environment(try ContainerID(parts[0]), environment)
                let own = tables.filter { $0.owner == owner }
                try env.core.database.write { t in
                    for table in own where StoreMigration.environmentTables.contains(table.name) { try load(table, from: backup, into: t) }
                    for type in try SchemaStorage.load(t).types {
                        try SchemaStorage.createTables(of: type, t)
                        if let table = own.first(where: { $0.name == type.table }) { try load(table, from: backup, into: t) }
                        try SchemaStorage.createIndexes(of: type, t)
                    }
                    try TableCopy.resetIdentities(t)
                }
                for file in manifest.files where file.path.hasPrefix("containers/\(owner)-assets/") {
                    try Backup.requireRegularFile(file.path, in: backup)
                    let data = try Data(contentsOf: backup.appendingPathComponent(file.path))
                    try env.assets.storeAssetContent(data, checksum: AssetFiles.checksum(of: data).base64)
                }
                progress("\(owner): \(manifest.recordCounts[owner] ?? 0) records")
            }
        }
        return manifest
    }

    /// Everything the manifest says of its tables, checked before anything is written: each is a table Stratus
    /// makes, of its owner's kind, with columns, and its rows file is one of the files `Backup.verify` checked (inside
    /// the backup, a regular file, of its SHA-256). A crafted manifest is then a clear error with nothing written.
    static func check(_ tables: [BackupManifest.Table], of manifest: BackupManifest) throws(StratusError) {
        let files = Set(manifest.files.map(\.path))
        var seen: Set<String> = []
        for table in tables {
            guard files.contains(table.path) else {
                throw .badRequest("the manifest's table \(table.name.prefix(60)) reads \(table.path.prefix(200)), which is not among the backup's checked files")
            }
            let known = table.owner == "control" ? StoreMigration.controlTables.contains(table.name)
                : StoreMigration.environmentTables.contains(table.name) || CatalogType.isTableName(table.name)
            guard known, table.name.utf8.count <= 64 else { throw .badRequest("the manifest names a table Stratus does not make: \(table.name.prefix(60))") }
            guard !table.columns.isEmpty, table.columns.count <= 4096, Set(table.columns).count == table.columns.count,
                  table.columns.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 255 && !$0.contains("\"") && !$0.contains("\u{0}") }) else {
                throw .badRequest("the manifest's table \(table.name) has no columns, or columns Stratus does not make")
            }
            guard table.rows >= 0, seen.insert(table.owner + "\u{0}" + table.name).inserted else {
                throw .badRequest("the manifest lists \(table.owner)'s \(table.name) twice, or with a negative row count")
            }
        }
    }

    /// A table's rows file into the target's table (emptied first: migrations may have seeded it); the target must
    /// have every column, and must end with the rows the file held.
    private static func load(_ table: BackupManifest.Table, from backup: URL, into t: any SQLSession) throws {
        // Checked again as it is read: a file swapped for a link after the manifest was verified is refused too.
        try Backup.requireRegularFile(table.path, in: backup)
        let missing = Set(table.columns).subtracting(try TableCopy.columns(table.name, t))
        guard missing.isEmpty else { throw StratusError.badRequest("the target's \(table.name) table lacks \(missing.sorted().joined(separator: ", "))") }
        try TableCopy.clear(table.name, t)
        var read: Int64 = 0
        try TableCopy.writeRows(table.name, table.columns, into: t) { add in
            read = try PortableRows.read(backup.appendingPathComponent(table.path), columns: table.columns.count, add)
        }
        guard read == table.rows else { throw StratusError.badRequest("\(table.path) holds \(read) rows, the manifest says \(table.rows)") }
        let count = try TableCopy.count(table.name, t)
        guard count == table.rows else { throw StratusError(.internalError, "\(table.name) holds \(count) rows after the restore, the backup \(table.rows)") }
    }

    /// A backup of format 1 (a staged data directory) into `store`, as a migration from it.
    private static func restoreStaged(from backup: URL, into store: ServerStore, progress: (String) -> Void) throws(StratusError) -> BackupManifest {
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
