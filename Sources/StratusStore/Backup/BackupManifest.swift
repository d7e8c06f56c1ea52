import Foundation

/// What a backup directory holds (`manifest.json`): when it was taken, by which format, every file with its size and
/// SHA-256, and each container environment's record count. `stratus restore` refuses a backup whose files do not match.
public struct BackupManifest: Codable, Sendable, Equatable {
    /// Bumped when the layout of a backup changes; a restore refuses a format it does not know. 1: a data directory
    /// (SQLite's files; the portable backup was one too, staged, before 2). 2: the portable backup, a rows file per
    /// table (see `PortableBackup`).
    public static let currentFormat = 1
    public static let portableFormat = 2
    public static let knownFormats = [currentFormat, portableFormat]

    public struct File: Codable, Sendable, Equatable {
        /// Relative to the data directory (and to the backup directory: the layout is the same).
        public var path: String
        public var bytes: Int64
        public var sha256: String
    }

    public var format: Int
    /// Milliseconds since 1970 when the backup began.
    public var takenAt: Int64
    public var stratusVersion: String
    public var files: [File]
    /// `"<container>/<environment>"` to its record count at the backup.
    public var recordCounts: [String: Int64]
    /// A portable backup's tables, in the order they are restored (absent from a data-directory backup).
    public var tables: [Table]?

    /// One table of a portable backup: whose it is (`control`, or `"<container>/<environment>"`), its name, its
    /// columns in the file's order, how many rows the file holds, and the file (one of `files`).
    public struct Table: Codable, Sendable, Equatable {
        public var owner: String
        public var name: String
        public var columns: [String]
        public var rows: Int64
        public var path: String
    }
}
