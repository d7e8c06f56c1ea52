import Foundation

/// An error from PostgreSQL or from reaching it, with what the server should do about it.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The connection could not be made or was lost: the request may be retried later (SERVICE_UNAVAILABLE).
        case unavailable
        /// A serialization failure or deadlock (SQLSTATE 40001, 40P01): the transaction may simply run again.
        case retryable
        /// A unique or other constraint refused the statement (SQLSTATE class 23).
        case constraint
        /// Every pooled connection stayed busy for the whole wait.
        case poolTimeout
        /// A statement ran past the connection's `statement_timeout` (SQLSTATE 57014): the request gives up.
        case timeout
        /// Anything else: a bug or a schema mismatch, never the client's fault.
        case other
        /// libpq itself could not be loaded (`PostgresLibrary`): the message names the package to install.
        case missingLibrary
    }

    public var kind: Kind
    /// The five-character SQLSTATE, when the server sent one.
    public var sqlState: String?
    public var message: String

    public init(_ kind: Kind, sqlState: String? = nil, _ message: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
    }

    /// The kind a SQLSTATE stands for (class 08 is connection exceptions, 57P0x the server shutting down).
    static func kind(ofSQLState s: String?) -> Kind {
        guard let s else { return .unavailable }
        if s == "40001" || s == "40P01" { return .retryable }
        if s == "57014" { return .timeout }
        if s.hasPrefix("23") { return .constraint }
        if s.hasPrefix("08") || s.hasPrefix("57P0") || s == "53300" { return .unavailable }
        return .other
    }

    public var description: String { sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message }
}
