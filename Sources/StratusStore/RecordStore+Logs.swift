import Foundation
import StratusModel

/// The server's request log and telemetry, kept where the store keeps everything else: files beside the control
/// database on SQLite, schemas of the same database on PostgreSQL (so that a node keeps nothing on its disk and
/// the console on any node sees every node's requests).
extension RecordStore {
    public func openRequestLog() throws(StratusError) -> RequestLog {
        if let postgres { return try RequestLog(postgres: postgres) }
        return try RequestLog(file: dataDirectory!.appendingPathComponent("requests.sqlite"))
    }

    public func openTelemetry(flushing: Bool = true) throws(StratusError) -> Telemetry {
        if let postgres { return try Telemetry(postgres: postgres, flushing: flushing) }
        return try Telemetry(file: dataDirectory!.appendingPathComponent("telemetry.sqlite"), flushing: flushing)
    }

    /// Whether the store is on PostgreSQL.
    public var isPostgres: Bool { postgres != nil }
}
