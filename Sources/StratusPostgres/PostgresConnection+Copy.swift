import CLibPQ

/// `COPY`: bulk reads and writes of whole tables (a backup, a restore, a migration), which move rows as a stream
/// instead of one result per row (`query`'s single-row mode) or one bound statement per few hundred rows.
extension PostgresConnection {
    /// Runs `COPY … TO STDOUT` and hands its data to `body` as it arrives, one CopyData message at a time (for a
    /// table, one row each; a binary copy's first also holds the header and its last the trailer). After a failure in
    /// `body` the rest is read and dropped (the connection must finish the copy) and the failure thrown.
    public func copyOut(_ sql: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let conn = handle, PQstatus(conn) == CONNECTION_OK else { throw PostgresError(.unavailable, "the connection to PostgreSQL was lost") }
        try drain()
        guard let started = PQexec(conn, sql) else { throw lost() }
        guard PQresultStatus(started) == PGRES_COPY_OUT else { defer { PQclear(started) }; throw error(started) }
        PQclear(started)
        var failure: Error?
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let n = PQgetCopyData(conn, &buffer, 0)
            if n == -1 { break }
            guard n > 0, let buffer else { throw lost() }
            defer { PQfreemem(buffer) }
            if failure == nil {
                do { try body(UnsafeRawBufferPointer(start: buffer, count: Int(n))) } catch { failure = error }
            }
        }
        try finish(conn, failure)
    }

    /// Runs `COPY … FROM STDIN` with what `body` writes into the `CopyIn` it is given (sent in pieces as it fills).
    /// A failure in `body` ends the copy with an error, so nothing of it is kept, and is thrown.
    public func copyIn(_ sql: String, _ body: (inout CopyIn) throws -> Void) throws {
        guard let conn = handle, PQstatus(conn) == CONNECTION_OK else { throw PostgresError(.unavailable, "the connection to PostgreSQL was lost") }
        try drain()
        guard let started = PQexec(conn, sql) else { throw lost() }
        guard PQresultStatus(started) == PGRES_COPY_IN else { defer { PQclear(started) }; throw error(started) }
        PQclear(started)
        var writer = CopyIn(connection: self)
        var failure: Error?
        do {
            try body(&writer)
            try writer.send()
        } catch { failure = error }
        guard PQputCopyEnd(conn, failure == nil ? nil : "the copy was abandoned") == 1 else { throw lost() }
        try finish(conn, failure)
    }

    /// Reads a copy's final results; throws `failure` first, else the server's error.
    private func finish(_ conn: OpaquePointer, _ failure: Error?) throws {
        var serverFailure: PostgresError?
        while let r = PQgetResult(conn) {
            if PQresultStatus(r) != PGRES_COMMAND_OK, serverFailure == nil { serverFailure = error(r) }
            PQclear(r)
        }
        if let failure { throw failure }
        if let serverFailure { throw serverFailure }
    }

    /// What a `copyIn` body writes: bytes of the copy's format, sent whenever `bytes` passes `chunk`.
    public struct CopyIn {
        let connection: PostgresConnection
        public var bytes: [UInt8] = []
        /// About how much is buffered before it is sent.
        public static let chunk = 1 << 18

        init(connection: PostgresConnection) {
            self.connection = connection
            bytes.reserveCapacity(Self.chunk + 4096)
        }

        /// Sends what is buffered once it passes `chunk`; call it after each row.
        public mutating func sendIfFull() throws {
            if bytes.count >= Self.chunk { try send() }
        }

        /// Sends what is buffered.
        public mutating func send() throws {
            guard !bytes.isEmpty else { return }
            guard let conn = connection.handle else { throw connection.lost() }
            let ok = bytes.withUnsafeBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { PQputCopyData(conn, $0, Int32(b.count)) }
            }
            guard ok == 1 else { throw connection.lost() }
            bytes.removeAll(keepingCapacity: true)
        }
    }
}
