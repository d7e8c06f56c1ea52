import GRDB
import StratusModel
import StratusPostgres

extension StratusError {
    /// Translates what storage throws. Only SQLite errors that mean something to a client get a client code;
    /// everything else is an internal error, whose text stays in the server's logs, not in a client's hands.
    static func from(_ error: any Error) -> StratusError {
        if let e = error as? StratusError { return e }
        if let w = error as? WriteFailure { return from(w.underlying) }
        if let e = error as? DatabaseError {
            switch e.resultCode {
            case .SQLITE_CONSTRAINT: return StratusError(.exists, "the item already exists")
            case .SQLITE_FULL: return StratusError(.quotaExceeded, "the server's storage is full")
            case .SQLITE_BUSY, .SQLITE_LOCKED: return StratusError(.tryAgainLater, "the database is busy; try again",
                                                                   retryAfter: 1)
            // SQLite's message and statement go to the server's log with the request's uuid (an internal error's
            // reason never reaches a client), so that an operator can tell what failed.
            default: return StratusError(.internalError,
                                         "storage error: \(e.extendedResultCode): \(e.message ?? "") [\(e.sql.map { String($0.prefix(400)) } ?? "")]")
            }
        }
        if let e = error as? PostgresError {
            switch e.kind {
            // A lost or restarting PostgreSQL: the client retries after a second, as CloudKit asks.
            case .unavailable: return StratusError(.serviceUnavailable, "the database is unavailable; try again",
                                                   retryAfter: 1)
            case .poolTimeout, .retryable, .timeout: return StratusError(.tryAgainLater,
                    "the database is busy; try again", retryAfter: 1)
            case .constraint: return StratusError(.exists, "the item already exists")
            case .other: return StratusError(.internalError, "storage error: \(e)")
            case .missingLibrary: return StratusError(.serviceUnavailable, e.message)
            }
        }
        return StratusError(.internalError, "unexpected error: \(error)")
    }
}

/// Runs storage work and lets only `StratusError` out.
@discardableResult
func guarded<T>(_ body: () throws -> T) throws(StratusError) -> T {
    do { return try body() } catch { throw StratusError.from(error) }
}
