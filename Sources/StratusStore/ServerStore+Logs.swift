import Foundation
import StratusModel

/// The server's request log and telemetry, kept where the store keeps everything else: files beside the control
/// database on SQLite, schemas of the same database on PostgreSQL (so that a node keeps nothing on its disk and
/// the console on any node sees every node's requests).
extension ServerStore {
    public func openRequestLog() throws(StratusError) -> RequestLog {
        if let postgres { return try RequestLog(postgres: postgres) }
        let file = dataDirectory!.appendingPathComponent("requests.sqlite")
        defer { PrivateFiles.file(file) }
        return try RequestLog(file: file)
    }

    public func openTelemetry(flushing: Bool = true) throws(StratusError) -> Telemetry {
        if let postgres { return try Telemetry(postgres: postgres, flushing: flushing) }
        let file = dataDirectory!.appendingPathComponent("telemetry.sqlite")
        defer { PrivateFiles.file(file) }
        return try Telemetry(file: file, flushing: flushing)
    }

    /// Whether the store is on PostgreSQL.
    public var isPostgres: Bool { postgres != nil }
}
