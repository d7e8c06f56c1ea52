import CLibPQ
import Foundation

/// One libpq connection. Statements are parameterised only, prepared once per connection (by their SQL) and run
/// with binary parameters and binary results; rows are handed over one at a time in libpq's single-row mode, so
/// a large result is never held in memory whole.
///
/// A connection is used by one thread at a time: `PostgresPool` hands it out and takes it back.
public final class PostgresConnection: @unchecked Sendable {
    private var conn: OpaquePointer?
    private var prepared: [String: String] = [:]
    /// The schema this connection's `search_path` names (session-wide), so it is set only when it changes.
    private var searchPath: String?

    /// Makes unqualified names resolve in `schema` on this connection from now on: a round trip only when the
    /// connection was last used for another schema. (A failed SET leaves it unknown, so the next use sets it again.)
    public func use(schema: String) throws(PostgresError) {
        guard searchPath != schema else { return }
        searchPath = nil
        try executeScript("SET search_path TO \(PostgresIdentifier.quoted(schema))")
        searchPath = schema
    }
    public let url: String

    /// No statement runs longer than this (a request must never hang on a lock or a runaway query).
    public static let statementTimeoutMilliseconds = 30_000

    public init(url: String, connectTimeoutSeconds: Int = 5,
                statementTimeoutMilliseconds: Int = PostgresConnection.statementTimeoutMilliseconds) throws(PostgresError) {
        self.url = url
        try PostgresLibrary.load()
        // libpq takes URLs and key=value strings; the timeout keeps a start from hanging on an unreachable host.
        let conninfo = Self.withTimeout(url, seconds: connectTimeoutSeconds)
        conn = PQconnectdb(conninfo)
        guard let conn, PQstatus(conn) == CONNECTION_OK else {
            let message = conn.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            if let c = conn { PQfinish(c) }
            conn = nil
            throw PostgresError(.unavailable, "cannot connect to PostgreSQL: \(Self.redacted(message))")
        }
        _ = PQsetClientEncoding(conn, "UTF8")
        // Notices ("schema already exists, skipping") would go to stderr by default: a server's log is not for them.
        try executeScript("SET statement_timeout = \(statementTimeoutMilliseconds); SET client_min_messages = warning")
    }

    deinit { if let conn { PQfinish(conn) } }

    /// Whether the connection is still usable (libpq noticed no loss).
    public var isHealthy: Bool { conn.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Runs a statement that returns no rows (or whose rows are not wanted); returns the rows it affected.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws -> Int {
        var affected = 0
        // Its rows, if any, are dropped: read in one piece, it can ride the pipeline (see `run`).
        try run(sql, parameters, rowByRow: false, affected: &affected) { _ in }
        return affected
    }

    /// Runs a query and hands each row to `body` as it arrives. `rowByRow: false` reads the result in one piece: for
    /// a result the statement bounds (a page), where a result per row costs more than it saves.
    public func query(_ sql: String, _ parameters: [PostgresValue] = [], rowByRow: Bool = true,
                      _ body: (PostgresRow) throws -> Void) throws {
        var affected = 0
        try run(sql, parameters, rowByRow: rowByRow, affected: &affected, body)
    }

    /// The first column of the first row, if any.
    public func scalar(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresValue? {
        var value: PostgresValue?
        try query(sql, parameters) { row in if value == nil { value = row.value(0) } }
        return value
    }

    /// Runs statements as they are, with no parameters and no preparation (schema scripts, LISTEN, SET).
    public func executeScript(_ sql: String) throws(PostgresError) {
        guard let conn else { throw PostgresError(.unavailable, "connection is closed") }
        try drain(ignoringFailure: sql.hasPrefix("ROLLBACK"))
        guard let r = PQexec(conn, sql) else { throw lost() }
        defer { PQclear(r) }
        let status = PQresultStatus(r)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw error(r) }
    }

    /// Runs `body` in a transaction; on a serialization failure or deadlock the whole transaction runs again
    /// (up to `attempts`, after a random pause that grows with each try, so contenders fall out of step), so callers
    /// never see one.
    public func transaction<T>(isolation: String = "READ COMMITTED", attempts: Int = 40,
                               _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            // BEGIN waits in the pipeline for the transaction's first statement: one round trip for both.
            try enqueue("BEGIN ISOLATION LEVEL \(isolation)")
            do {
                let value = try body(self)
                try commit()
                return value
            } catch let e as PostgresError where e.kind == .retryable && attempt < attempts {
                try? executeScript("ROLLBACK")
                usleep(useconds_t.random(in: 0...useconds_t(min(20_000, 500 << min(attempt, 10)))))
            } catch {
                if isHealthy { try? executeScript("ROLLBACK") }
                throw error
            }
        }
    }

    /// Commits. Writes still in the pipeline take the COMMIT with them, one round trip for both; without any, it is
    /// sent on its own. A failed write aborts the pipeline's COMMIT too, and its error is thrown.
    private func commit() throws {
        guard pipelined > 0 else { return try executeScript("COMMIT") }
        try enqueue("COMMIT")
        try drain()
    }

    /// The connection's socket and libpq handle, for LISTEN (see `PostgresListener`).
    var handle: OpaquePointer? { conn }

    // MARK: running

    private func run(_ sql: String, _ parameters: [PostgresValue], rowByRow: Bool = true, affected: inout Int,
                     _ body: (PostgresRow) throws -> Void) throws {
        guard let conn, PQstatus(conn) == CONNECTION_OK else { throw PostgresError(.unavailable,
                "the connection to PostgreSQL was lost") }
        // A result read in one piece goes after what waits in the pipeline (a BEGIN, writes), in one round trip.
        if !rowByRow, pipelined > 0, prepared[sql] != nil { return try runPipelined(sql, parameters,
                affected: &affected, body) }
        try drain()
        let name = try statementName(sql, parameters)
        try send(name, parameters, conn)
        if rowByRow { _ = PQsetSingleRowMode(conn) }
        var failure: Error?
        // Every result must be read, even after a failure, or the connection stays busy.
        while let r = PQgetResult(conn) {
            defer { PQclear(r) }
            switch PQresultStatus(r) {
            case PGRES_SINGLE_TUPLE:
                if failure == nil {
                    do { try body(PostgresRow(result: r, row: 0)) } catch { failure = error }
                }
            case PGRES_TUPLES_OK:
                for i in 0..<PQntuples(r) where failure == nil {
                    do { try body(PostgresRow(result: r, row: i)) } catch { failure = error }
                }
            case PGRES_COMMAND_OK:
                affected = Int(String(cString: PQcmdTuples(r))) ?? 0
            default:
                if failure == nil { failure = error(r) }
            }
        }
        if let failure { throw failure }
    }

    /// Sends a prepared statement with binary parameters, packed into one buffer; libpq copies them into its output
    /// buffer before `PQsendQueryPrepared` returns.
    private func send(_ name: String, _ parameters: [PostgresValue], _ conn: OpaquePointer) throws {
        var buffer: [UInt8] = []
        var offsets: [Int] = [], lengths: [Int32] = [], present: [Bool] = []
        for p in parameters {
            let start = buffer.count
            present.append(p.appendBinary(to: &buffer))
            offsets.append(start)
            lengths.append(Int32(buffer.count - start))
        }
        let formats = [Int32](repeating: 1, count: parameters.count)
        let sent: Int32 = buffer.withUnsafeBufferPointer { b in
            var values: [UnsafePointer<CChar>?] = parameters.indices.map { i in
                guard present[i] else { return nil }
                // A zero-length value still needs a non-null pointer (NULL is what marks SQL NULL).
                return UnsafeRawPointer(b.baseAddress.map { $0 + offsets[i] } ?? UnsafePointer(bitPattern: 1)!)?.assumingMemoryBound(to: CChar.self)
            }
            return values.withUnsafeMutableBufferPointer { v in
                lengths.withUnsafeBufferPointer { l in
                    formats.withUnsafeBufferPointer { f in
                        PQsendQueryPrepared(conn, name, Int32(parameters.count), v.baseAddress, l.baseAddress,
                                            f.baseAddress, 1)
                    }
                }
            }
        }
        guard sent == 1 else { throw lost() }
    }

    // MARK: pipelining

    /// Statements sent ahead (libpq's pipeline mode) whose results are not read yet.
    private var pipelined = 0
    /// How many statements may wait in the pipeline: their results must fit the socket's buffers, or both ends
    /// would block writing to each other.
    static let pipelineLimit = 256

    /// Sends a statement whose result is not needed now (an insert, an update) without waiting for it: a write of
    /// many statements costs one round trip per `pipelineLimit`, not one each. Its failure is thrown by the next
    /// statement that waits (every other call does), which in a transaction fails the transaction, as it would have.
    public func enqueue(_ sql: String, _ parameters: [PostgresValue] = []) throws {
        guard let conn, PQstatus(conn) == CONNECTION_OK else { throw PostgresError(.unavailable,
                "the connection to PostgreSQL was lost") }
        // Preparing is a round trip of its own, outside the pipeline.
        if prepared[sql] == nil { try drain() }
        let name = try statementName(sql, parameters)
        if pipelined == 0 { guard PQenterPipelineMode(conn) == 1 else { throw lost() } }
        pipelined += 1
        try send(name, parameters, conn)
        if pipelined >= Self.pipelineLimit { try drain() }
    }

    /// Sends `sql` after the statements waiting in the pipeline and reads every result in one round trip: theirs
    /// (the first failure among them is thrown, and aborts the rest, `sql` included) and then its rows, whole.
    private func runPipelined(_ sql: String, _ parameters: [PostgresValue], affected: inout Int,
                              _ body: (PostgresRow) throws -> Void) throws {
        guard let conn else { throw lost() }
        let name = try statementName(sql, parameters)
        try send(name, parameters, conn)
        let ahead = pipelined
        pipelined = 0
        guard PQpipelineSync(conn) == 1 else { throw lost() }
        var failure: Error?
        var statement = 0
        var synced = false
        var idle = 0
        while !synced {
            // Each statement's results end with a NULL; the sync's result comes last.
            guard let r = PQgetResult(conn) else {
                statement += 1
                idle += 1
                if idle > ahead + 3 || PQstatus(conn) != CONNECTION_OK { break }
                continue
            }
            idle = 0
            defer { PQclear(r) }
            switch PQresultStatus(r) {
            case PGRES_PIPELINE_SYNC: synced = true
            case PGRES_PIPELINE_ABORTED: break
            // Rows one result each, too: libpq can carry single-row mode, asked for a statement read row by row
            // before the pipeline, into the first statement of the pipeline (seen when reading pieces of a page).
            case PGRES_TUPLES_OK where statement == ahead, PGRES_SINGLE_TUPLE where statement == ahead:
                for i in 0..<PQntuples(r) where failure == nil {
                    do { try body(PostgresRow(result: r, row: i)) } catch { failure = error }
                }
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE:
                if statement == ahead { affected = Int(String(cString: PQcmdTuples(r))) ?? 0 }
            default: if failure == nil { failure = error(r) }
            }
        }
        guard synced, PQexitPipelineMode(conn) == 1 else { throw failure ?? lost() }
        if let failure { throw failure }
    }

    /// Reads the results of the statements in the pipeline and leaves pipeline mode; throws the first failure
    /// (unless `ignoringFailure`, for a rollback, which discards them anyway).
    func drain(ignoringFailure: Bool = false) throws(PostgresError) {
        guard pipelined > 0, let conn else { return }
        pipelined = 0
        guard PQpipelineSync(conn) == 1 else { throw lost() }
        var failure: PostgresError?
        var synced = false
        var idle = 0
        while !synced {
            // Each statement's results end with a NULL; the sync's result comes last.
            guard let r = PQgetResult(conn) else {
                idle += 1
                if idle > Self.pipelineLimit + 2 || PQstatus(conn) != CONNECTION_OK { break }
                continue
            }
            idle = 0
            switch PQresultStatus(r) {
            case PGRES_PIPELINE_SYNC: synced = true
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE, PGRES_PIPELINE_ABORTED: break
            default: if failure == nil { failure = error(r) }
            }
            PQclear(r)
        }
        guard synced, PQexitPipelineMode(conn) == 1 else { throw failure ?? lost() }
        if let failure, !ignoringFailure { throw failure }
    }

    /// How many prepared statements a connection keeps before it drops them all and starts again.
    static let preparedLimit = 2_000

    /// The prepared statement for `sql`, preparing it on this connection the first time. PostgreSQL plans it again
    /// by itself when a table it reads changes or the transaction's `search_path` names another schema.
    private func statementName(_ sql: String, _ parameters: [PostgresValue]) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        guard let conn else { throw PostgresError(.unavailable, "connection is closed") }
        // Statements naming tables by type (t1, t2, …) or holding IN lists vary without end: the cache is bounded.
        if prepared.count >= Self.preparedLimit {
            try executeScript("DEALLOCATE ALL")
            prepared.removeAll(keepingCapacity: true)
        }
        let name = "s\(prepared.count + 1)"
        // Parameter types left to the server (0) where the value is NULL; otherwise the value's own type.
        let types = parameters.map { $0.typeOID }
        guard let r = types.withUnsafeBufferPointer({ PQprepare(conn, name, sql, Int32(types.count),
                                                                $0.baseAddress) }) else { throw lost() }
        defer { PQclear(r) }
        guard PQresultStatus(r) == PGRES_COMMAND_OK else { throw error(r) }
        prepared[sql] = name
        return name
    }

    func error(_ r: OpaquePointer) -> PostgresError {
        let state = PQresultErrorField(r, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = PQresultErrorField(r,
                                         Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? String(cString: PQresultErrorMessage(r))
        if !isHealthy { return PostgresError(.unavailable, sqlState: state,
                                             "the connection to PostgreSQL was lost: \(message)") }
        return PostgresError(PostgresError.kind(ofSQLState: state), sqlState: state, message)
    }

    func lost() -> PostgresError {
        let message = conn.map { String(cString: PQerrorMessage($0)) } ?? "connection is closed"
        return PostgresError(.unavailable, "the connection to PostgreSQL was lost: \(Self.redacted(message))")
    }

    /// A URL with `connect_timeout` added unless it names one.
    static func withTimeout(_ url: String, seconds: Int) -> String {
        guard !url.contains("connect_timeout") else { return url }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            return url + (url.contains("?") ? "&" : "?") + "connect_timeout=\(seconds)"
        }
        return url + " connect_timeout=\(seconds)"
    }

    /// libpq's messages can quote the connection string; a password must not reach a log or a client.
    static func redacted(_ message: String) -> String {
        message.replacingOccurrences(of: #"://([^:/@\s]+):[^@\s]*@"#, with: "://$1:***@", options: .regularExpression)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
