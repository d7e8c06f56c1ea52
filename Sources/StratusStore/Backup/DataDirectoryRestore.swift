import Foundation
import StratusModel

/// `stratus restore --from BACKUP --data DIR`: a backup of either format into a new data directory, all or nothing.
/// The data directory is built beside the target and moved into place only once it opens as a store, so a restore
/// that fails (a damaged file, a crafted manifest, a full disk) leaves no half-written directory where the server
/// would open it. The target must not exist or be empty, and must not be a symbolic link (a restore writes where the
/// operator named, not through a link to somewhere else).
public enum DataDirectoryRestore {
    @discardableResult
    public static func restore(from backup: URL, to data: URL,
                               progress: (String) -> Void = { _ in }) throws(StratusError) -> BackupManifest {
        try guarded {
            var st = stat()
            if lstat(data.path, &st) == 0 {
                guard st.st_mode & S_IFMT == S_IFDIR else {
                    throw StratusError.badRequest("\(data.path) is \(st.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a directory"): name a new directory to restore into")
                }
                try Backup.requireEmpty(data)
            }
            let parent = data.standardizedFileURL.deletingLastPathComponent()
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            let staging = parent.appendingPathComponent(".stratus-restore-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: staging) }
            let manifest: BackupManifest
            if Backup.isPortable(backup) {
                let store = try ServerStore(dataDirectory: staging)
                defer { store.close() }
                manifest = try PortableBackup.restore(from: backup, into: store, progress: progress)
            } else {
                manifest = try Backup.restore(from: backup, to: staging)
                // What was copied must be a store: opened (and brought up to this version) before it is put in place.
                do {
                    let store = try ServerStore(dataDirectory: staging)
                    store.close()
                } catch {
                    throw StratusError.badRequest("\(backup.path) restored, but what it holds does not open as a Stratus data directory: \(error)")
                }
            }
            if lstat(data.path, &st) == 0 { try FileManager.default.removeItem(at: data) }
            guard rename(staging.path, data.path) == 0 else {
                throw StratusError.badRequest("cannot move the restored data directory into \(data.path): \(String(cString: strerror(errno)))")
            }
            return manifest
        }
    }
}
