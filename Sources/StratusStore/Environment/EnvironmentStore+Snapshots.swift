import Foundation
import StratusModel

/// Snapshots of an environment for test suites: its whole state (records, zones, tokens, subscriptions, schema)
/// saved with SQLite's online backup and brought back into the live database the same way, so each test of an
/// app's suite starts from the same data while the server keeps running. SQLite only.
extension EnvironmentStore {
    /// Saves the environment into `file` (and hard links of its asset files into `assetsCopy`).
    func snapshot(to file: URL, assetsCopy: URL) throws(StratusError) {
        let sqlite = try core.sqliteFile()
        try guarded {
            try sqlite.backup(to: file)
            try Self.linkTree(core.files.root, into: assetsCopy)
        }
    }

    /// Puts the environment back as `file` holds it, in one step readers see whole, then forgets every cache.
    func restore(from file: URL, assetsCopy: URL) throws(StratusError) {
        let sqlite = try core.sqliteFile()
        try guarded {
            // Asset files first: a restored record must never name a file that is not there.
            try Self.linkTree(assetsCopy, into: core.files.root)
            try sqlite.restore(from: file)
        }
        forgetCaches()
    }

    /// Drops what this store remembers of the database, after the database changed under it as a whole.
    func forgetCaches() {
        if let fresh = try? core.read({ s, _ in try SchemaStorage.load(s) }) { core.cachedCatalog.write { $0 = fresh } }
        subscriptions.subscriptionsChanged()
        webhooks.webhooksChanged()
        quota.usageCache.withLock { $0 = nil }
        records.deferredTypes.withLock { $0 = [] }
    }

    /// Hard links (or copies, across file systems) every file under `source` into the same place under
    /// `destination`, leaving files already there alone: asset files are named by their content.
    static func linkTree(_ source: URL, into destination: URL) throws {
        let fm = FileManager.default
        guard let walker = fm.enumerator(at: source, includingPropertiesForKeys: [.isRegularFileKey,
                .isSymbolicLinkKey]) else { return }
        try fm.createDirectory(at: destination, withIntermediateDirectories: true,
                               attributes: [.posixPermissions: 0o700])
        for case let url as URL in walker {
            let values = try url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
            guard values.isRegularFile == true, values.isSymbolicLink != true, !url.lastPathComponent.hasPrefix(".tmp-") else { continue }
            let relative = String(url.path.dropFirst(source.path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let target = destination.appendingPathComponent(relative)
            if fm.fileExists(atPath: target.path) { continue }
            try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true,
                                   attributes: [.posixPermissions: 0o700])
            do { try fm.linkItem(at: url, to: target) } catch { try fm.copyItem(at: url, to: target) }
        }
    }
}
