import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A data directory holds password hashes, emails, signing secrets, webhook secrets and users' records: it is the
/// running user's alone. Directories are 0700 and files 0600 — made so here, and checked (and set right, said in
/// the log) when a store opens. `stratus` itself runs with umask 077, so whatever it writes is born private.
public enum PrivateFiles {
    public static let directoryMode: mode_t = 0o700
    public static let fileMode: mode_t = 0o600

    /// Creates `url` (and its parents) as a private directory, or makes an existing one private.
    public static func directory(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: Int(directoryMode)])
        chmod(url.path, directoryMode)
    }

    /// Makes a file private (a database SQLite created with the process's umask, its WAL and shared memory).
    public static func file(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let path = url.path + suffix
            var st = stat()
            if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_mode & 0o077 != 0 { chmod(path, fileMode) }
        }
    }

    /// Every directory under `root`, and the files directly in it and in its first level (the databases), made
    /// private where they were not. Asset files are left as they are: the 0700 directories above them already
    /// keep everyone else out. Returns the paths it changed, for the log.
    @discardableResult
    public static func secure(_ root: URL) -> [String] {
        var changed: [String] = []
        func visit(_ url: URL, depth: Int) {
            var st = stat()
            guard lstat(url.path, &st) == 0 else { return }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                if st.st_mode & 0o077 != 0 { chmod(url.path, directoryMode); changed.append(url.path) }
                for name in (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] {
                    visit(url.appendingPathComponent(name), depth: depth + 1)
                }
            case S_IFREG where depth <= 3:
                if st.st_mode & 0o077 != 0 { chmod(url.path, fileMode); changed.append(url.path) }
            default: break
            }
        }
        visit(root, depth: 0)
        return changed
    }
}
