import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import StratusModel

/// Online backup and restore of a whole data directory.
///
/// A backup copies each database file with SQLite's online backup API in one step: the copy reads inside one read
/// transaction, so with WAL it is a consistent snapshot of that file while a running `stratus serve` keeps
/// committing (a writer never waits for it; the copy holds up checkpoints, nothing else). Files are copied one after
/// another, the control database first, so each file is consistent on its own and holds every write acknowledged
/// before the backup began. Asset files are content-addressed and never rewritten: they are copied after their
/// environment's database, and every asset that copy references must be among them.
public enum Backup {
    /// Backs up `data` into `destination` (created; must not exist or be empty) and writes its manifest last, so a
    /// directory without `manifest.json` is an unfinished backup.
    @discardableResult
    public static func create(data: URL, to destination: URL, progress: (String) -> Void = { _ in }) throws(StratusError) -> BackupManifest {
        try guarded {
            let fm = FileManager.default
            guard fm.fileExists(atPath: data.appendingPathComponent("stratus.sqlite").path) else {
                throw StratusError.badRequest("\(data.path) is not a Stratus data directory (no stratus.sqlite)")
            }
            try requireEmpty(destination)
            try PrivateFiles.directory(destination)
            let takenAt = WallClock.nowMillis()
            var files: [BackupManifest.File] = []
            var counts: [String: Int64] = [:]
            files.append(try copyDatabase("stratus.sqlite", from: data, to: destination))
            progress("stratus.sqlite")
            let containers = data.appendingPathComponent("containers")
            for container in (try? fm.contentsOfDirectory(atPath: containers.path).sorted()) ?? [] {
                for environment in ContainerEnvironment.allCases {
                    let relative = "containers/\(container)/\(environment.rawValue).sqlite"
                    guard fm.fileExists(atPath: data.appendingPathComponent(relative).path) else { continue }
                    let file = try copyDatabase(relative, from: data, to: destination)
                    files.append(file)
                    let copy = try SQLiteQueueFile.existing(destination.appendingPathComponent(relative))
                    let (count, assets) = try copy.read { s -> (Int64, [String]) in
                        let count = try s.tableExists("record_counts") ? try RecordCounts.total(s) : 0
                        let assets = try s.tableExists("assets") ? try AssetRows.checksums(referencedOnly: true, s) : []
                        return (count, assets)
                    }
                    copy.close()
                    counts["\(container)/\(environment.rawValue)"] = count
                    let assetDirectory = "containers/\(container)/\(environment.rawValue)-assets"
                    let copied = try copyTree(assetDirectory, from: data, to: destination)
                    files += copied
                    let present = Set(copied.map { String($0.path.dropFirst(assetDirectory.count + 1)) })
                    if let missing = assets.first(where: { c in AssetFiles.hex(fromChecksum: c).map { !present.contains("\($0.prefix(2))/\($0.dropFirst(2))") } ?? false }) {
                        throw StratusError(.internalError, "asset \(missing) of \(container)/\(environment.rawValue) vanished while the backup ran; run it again")
                    }
                    progress(relative)
                }
            }
            let manifest = BackupManifest(format: BackupManifest.currentFormat, takenAt: takenAt, stratusVersion: StratusVersion.current, files: files, recordCounts: counts)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(manifest).write(to: destination.appendingPathComponent("manifest.json"), options: .atomic)
            // A backup holds what the data directory holds: the running user's alone, as it is.
            PrivateFiles.secure(destination)
            return manifest
        }
    }

    /// Checks every file of the backup against its manifest, then rebuilds a data directory at `data` (which must not
    /// exist or be empty). Nothing is written when a check fails.
    @discardableResult
    public static func restore(from backup: URL, to data: URL) throws(StratusError) -> BackupManifest {
        try guarded {
            let manifest = try verify(backup)
            guard manifest.format == BackupManifest.currentFormat else {
                throw StratusError.badRequest("\(backup.path) is a portable backup: it restores through PortableBackup (stratus restore does this by itself)")
            }
            // A data directory's files: its control database and what lies under containers/, nothing else.
            guard manifest.files.contains(where: { $0.path == "stratus.sqlite" }),
                  manifest.files.allSatisfy({ $0.path == "stratus.sqlite" || $0.path.hasPrefix("containers/") }) else {
                throw StratusError.badRequest("\(backup.path) is marked a data-directory backup but does not hold one (stratus.sqlite and containers/ only)")
            }
            try requireEmpty(data)
            try PrivateFiles.directory(data)
            let fm = FileManager.default
            for f in manifest.files {
                let target = data.appendingPathComponent(f.path)
                try PrivateFiles.directory(target.deletingLastPathComponent())
                // Checked again as it is copied: a file swapped for a link after `verify` is refused too.
                try requireRegularFile(f.path, in: backup)
                try fm.copyItem(at: backup.appendingPathComponent(f.path), to: target)
            }
            PrivateFiles.secure(data)
            return manifest
        }
    }

    /// Whether the backup at `url` is a portable one (its manifest says format 2), without checking its files.
    public static func isPortable(_ url: URL) -> Bool {
        guard let bytes = try? Data(contentsOf: url.appendingPathComponent("manifest.json")),
              let manifest = try? JSONDecoder().decode(BackupManifest.self, from: bytes) else { return false }
        return manifest.format == BackupManifest.portableFormat
    }

    /// The manifest of a complete, intact backup; a clear error for a missing manifest, an unknown format, a file
    /// missing, truncated or changed.
    public static func verify(_ backup: URL) throws(StratusError) -> BackupManifest {
        try guarded {
            guard let bytes = try? Data(contentsOf: backup.appendingPathComponent("manifest.json")) else {
                throw StratusError.badRequest("\(backup.path) has no manifest.json: not a backup, or one that did not finish")
            }
            guard let manifest = try? JSONDecoder().decode(BackupManifest.self, from: bytes) else {
                throw StratusError.badRequest("\(backup.path)/manifest.json is not a backup manifest")
            }
            guard BackupManifest.knownFormats.contains(manifest.format) else {
                throw StratusError.badRequest("backup format \(manifest.format) is not one this Stratus restores (it knows \(BackupManifest.knownFormats.map(String.init).joined(separator: " and ")))")
            }
            for f in manifest.files {
                guard !f.path.split(separator: "/").contains(".."), !f.path.hasPrefix("/") else {
                    throw StratusError.badRequest("the manifest names a file outside the backup: \(f.path)")
                }
                let url = backup.appendingPathComponent(f.path)
                try requireRegularFile(f.path, in: backup)
                guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int64 else {
                    throw StratusError.badRequest("the backup is missing \(f.path)")
                }
                guard size == f.bytes else { throw StratusError.badRequest("\(f.path) is \(size) bytes, the manifest says \(f.bytes): the backup is truncated or changed") }
                guard try sha256(of: url) == f.sha256 else { throw StratusError.badRequest("\(f.path) does not match its SHA-256 in the manifest: the backup is damaged") }
            }
            return manifest
        }
    }

    // MARK: pieces

    /// A backup holds regular files in plain directories only: a symbolic link (to the file, or to a directory on
    /// its way) would make a restore copy something from outside the backup, or plant a link in the data directory.
    static func requireRegularFile(_ relative: String, in backup: URL) throws {
        var url = backup
        let parts = relative.split(separator: "/").map(String.init)
        for (i, part) in parts.enumerated() {
            url = url.appendingPathComponent(part)
            var st = stat()
            guard lstat(url.path, &st) == 0 else { throw StratusError.badRequest("the backup is missing \(relative)") }
            let kind = st.st_mode & S_IFMT
            let wanted = i == parts.count - 1 ? S_IFREG : S_IFDIR
            guard kind == wanted else {
                throw StratusError.badRequest("\(parts[0...i].joined(separator: "/")) in the backup is \(kind == S_IFLNK ? "a symbolic link" : "not a plain \(wanted == S_IFREG ? "file" : "directory")"): refusing to restore it")
            }
        }
    }

    static func requireEmpty(_ directory: URL) throws {
        let fm = FileManager.default
        guard fm.fileExists(atPath: directory.path) else { return }
        if let entries = try? fm.contentsOfDirectory(atPath: directory.path), !entries.isEmpty {
            throw StratusError.badRequest("\(directory.path) is not empty: refusing to overwrite it")
        }
    }

    /// One database file through SQLite's backup API (a consistent snapshot even while another process writes).
    private static func copyDatabase(_ relative: String, from data: URL, to destination: URL) throws -> BackupManifest.File {
        let target = destination.appendingPathComponent(relative)
        try PrivateFiles.directory(target.deletingLastPathComponent())
        try SQLiteQueueFile.copy(data.appendingPathComponent(relative), to: target)
        return try describe(relative, in: destination)
    }

    /// Every regular file under `relative` (none when it does not exist), copied.
    private static func copyTree(_ relative: String, from data: URL, to destination: URL) throws -> [BackupManifest.File] {
        let fm = FileManager.default
        let root = data.appendingPathComponent(relative)
        guard let walker = fm.enumerator(atPath: root.path) else { return [] }
        var out: [BackupManifest.File] = []
        while let sub = walker.nextObject() as? String {
            if (sub as NSString).lastPathComponent.hasPrefix(".tmp-") { continue }  // an upload not yet committed
            // Regular files only: a link in the data directory is not copied (nor followed).
            var st = stat()
            guard lstat(root.appendingPathComponent(sub).path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            let path = relative + "/" + sub
            let target = destination.appendingPathComponent(path)
            try PrivateFiles.directory(target.deletingLastPathComponent())
            try fm.copyItem(at: root.appendingPathComponent(sub), to: target)
            out.append(try describe(path, in: destination))
        }
        return out.sorted { $0.path < $1.path }
    }

    private static func describe(_ relative: String, in directory: URL) throws -> BackupManifest.File {
        let url = directory.appendingPathComponent(relative)
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0
        return BackupManifest.File(path: relative, bytes: size, sha256: try sha256(of: url))
    }

    /// The SHA-256 of bytes in memory, as `sha256(of:)` spells a file's.
    static func sha256(of data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    /// Streams the file through SHA-256 in 1 MB reads.
    static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
