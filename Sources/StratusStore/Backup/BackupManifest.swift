import Foundation

/// What a backup directory holds (`manifest.json`): when it was taken, by which format, every file with its size and
/// SHA-256, and each container environment's record count. `stratus restore` refuses a backup whose files do not match.
public struct BackupManifest: Codable, Sendable, Equatable {
    /// Bumped when the layout of a backup changes; a restore refuses a format it does not know.
    public static let currentFormat = 1

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
}
