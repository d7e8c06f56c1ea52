import Foundation
import Synchronization
import Testing
import StratusTestSupport
@testable import StratusPostgres

/// The libpq client against a real PostgreSQL: values round-trip exactly, rows stream, errors keep their meaning.
@Suite(.serialized) struct PostgresClientTests {
    static func connect() throws -> PostgresConnection? {
        guard let url = TestPostgres.url else {
            #expect(!TestPostgres.required, "STRATUS_TEST_POSTGRES_URL is required here")
            return nil
        }
        return try PostgresConnection(url: url)
    }

    /// Pipelined statements (a write that returns rows, a BEGIN riding the transaction's first statement) keep
    /// their results right after statements read row by row, with rows or without.
    @Test func pipelinedStatementsAfterARowByRowRead() throws {
        guard let c = try Self.connect() else { return }
        try c.executeScript("CREATE TEMP TABLE p(n BIGINT PRIMARY KEY)")
        try c.execute("INSERT INTO p SELECT generate_series(1, 100)")
        func streamAll() throws -> Int {
            var streamed = 0
            try c.query("SELECT n FROM p ORDER BY n") { _ in streamed += 1 }
            return streamed
        }
        func largest() throws -> Int64? {
            var back: Int64?
            try c.query("SELECT max(n) FROM p", rowByRow: false) { row in if case .int64(let n) = row.value(0) { back = n } }
            return back
        }
        #expect(try streamAll() == 100)
        // A write that returns a row waits in the pipeline first; the query after it rides with it.
        try c.enqueue("INSERT INTO p VALUES (1001) RETURNING n")
        #expect(try largest() == 1001)
        #expect(try streamAll() == 101)
        try c.enqueue("INSERT INTO p VALUES (1002) RETURNING n")
        try c.executeScript("SELECT 1")
        #expect(try largest() == 1002)
        #expect(try streamAll() == 102)
        #expect(try c.transaction { _ in try largest() } == 1002)
        // The same after a row-by-row read that found nothing.
        try c.query("SELECT n FROM p WHERE n < 0") { _ in }
        try c.enqueue("INSERT INTO p VALUES (1003) RETURNING n")
        #expect(try largest() == 1003)
        try c.query("SELECT n FROM p WHERE n < 0") { _ in }
        try c.enqueue("INSERT INTO p VALUES (1004) RETURNING n")
        try c.executeScript("SELECT 1")
        #expect(try largest() == 1004)
    }

    @Test func everyValueTypeRoundTripsThroughParametersAndBinaryResults() throws {
        guard let c = try Self.connect() else { return }
        let hostile = "it's \"quoted\"; DROP TABLE x; -- ü 𝄞 \u{0}".replacingOccurrences(of: "\u{0}", with: "")
        let values: [PostgresValue] = [.int64(Int64.min), .int64(Int64.max), .double(-0.1), .double(1e308), .text(hostile), .text(""),
                                       .bytes([0, 1, 255, 0]), .bytes([]), .bool(true), .bool(false)]
        try c.executeScript("CREATE TEMP TABLE v(i BIGINT, t TEXT, d DOUBLE PRECISION, b BYTEA, f BOOLEAN)")
        for v in values {
            var row: [PostgresValue] = [.null, .null, .null, .null, .null]
            switch v {
            case .int64: row[0] = v
            case .text: row[1] = v
            case .double: row[2] = v
            case .bytes: row[3] = v
            case .bool: row[4] = v
            case .null: break
            }
            try c.execute("INSERT INTO v VALUES ($1, $2, $3, $4, $5)", row)
            var back: [PostgresValue] = []
            try c.query("SELECT i, t, d, b, f FROM v") { r in back = (0..<5).map { r.value($0) } }
            #expect(back == row, "\(v) came back as \(back)")
            try c.execute("DELETE FROM v")
        }
        #expect(try c.scalar("SELECT $1::bigint + 1", [.int64(41)]) == .int64(42))
        #expect(try c.scalar("SELECT $1::text IS NULL", [.null]) == .bool(true))
    }

    @Test func largeResultsStreamRowByRow() throws {
        guard let c = try Self.connect() else { return }
        var count = 0, sum: Int64 = 0
        try c.query("SELECT g, repeat('x', 1000) FROM generate_series(1, $1::bigint) g", [.int64(200_000)]) { r in
            count += 1
            sum += r.int64(0)!
        }
        #expect(count == 200_000 && sum == 200_000 * 200_001 / 2)
    }

    @Test func errorsKeepTheirKindAndTheConnectionStaysUsable() throws {
        guard let c = try Self.connect() else { return }
        try c.executeScript("CREATE TEMP TABLE u(k TEXT PRIMARY KEY)")
        try c.execute("INSERT INTO u VALUES ($1)", ["a"])
        #expect(throws: PostgresError.self) { try c.execute("INSERT INTO u VALUES ($1)", ["a"]) }
        do { try c.execute("INSERT INTO u VALUES ($1)", ["a"]) } catch let e as PostgresError {
            #expect(e.kind == .constraint && e.sqlState == "23505")
        }
        do { try c.execute("SELEC 1") } catch let e as PostgresError { #expect(e.kind == .other && e.sqlState == "42601") }
        // A failure inside a row callback stops the query and leaves the connection ready.
        struct Stop: Error {}
        #expect(throws: Stop.self) { try c.query("SELECT g FROM generate_series(1, 1000) g") { _ in throw Stop() } }
        #expect(try c.scalar("SELECT count(*) FROM u") == .int64(1))
    }

    @Test func aStatementPastItsTimeoutIsCancelled() throws {
        guard let url = TestPostgres.url else { #expect(!TestPostgres.required); return }
        let c = try PostgresConnection(url: url, statementTimeoutMilliseconds: 200)
        let started = Date()
        do { try c.execute("SELECT pg_sleep(5)"); Issue.record("the statement ran to its end") } catch let e as PostgresError {
            #expect(e.kind == .timeout && e.sqlState == "57014")
        }
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(try c.scalar("SELECT 1") == .int64(1), "the connection stays usable")
    }

    @Test func aSerializationFailureIsRetriedInsideTheTransaction() async throws {
        guard let url = TestPostgres.url else { #expect(!TestPostgres.required); return }
        let setup = try PostgresConnection(url: url)
        let table = "ser_\(UInt32.random(in: 0...UInt32.max))"
        try setup.executeScript("CREATE TABLE \(table)(id INT PRIMARY KEY, n BIGINT); INSERT INTO \(table) VALUES (1, 0)")
        defer { try? setup.executeScript("DROP TABLE \(table)") }
        let pool = PostgresPool(url: url, capacity: 4)
        // Four writers increment one row under SERIALIZABLE: conflicts happen, and every increment still lands once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await offPool {
                        for _ in 0..<25 {
                            try pool.transaction(isolation: "SERIALIZABLE") { c in
                                let n = try c.scalar("SELECT n FROM \(table) WHERE id = 1")
                                guard case .int64(let v) = n else { throw PostgresError(.other, "no row") }
                                try c.execute("UPDATE \(table) SET n = $1 WHERE id = 1", [.int64(v + 1)])
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try setup.scalar("SELECT n FROM \(table) WHERE id = 1") == .int64(100))
    }

    @Test func thePoolIsBoundedAndWaitsAtMostItsTimeout() async throws {
        guard let url = TestPostgres.url else { #expect(!TestPostgres.required); return }
        let pool = PostgresPool(url: url, capacity: 1, acquireTimeout: 0.3)
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holder = Thread { _ = try? pool.withConnection { _ in inside.signal(); release.wait() } }
        holder.start()
        // A holder that never got its connection fails the test instead of hanging the suite.
        guard inside.wait(timeout: .now() + 60) == .success else { Issue.record("the first connection was never lent out"); return }
        let started = Date()
        do { try pool.withConnection { _ in }; Issue.record("a second connection was lent out") } catch let e as PostgresError {
            #expect(e.kind == .poolTimeout)
        }
        #expect(Date().timeIntervalSince(started) < 3)
        release.signal()
        try await Task.sleep(for: .milliseconds(100))
        #expect(try pool.withConnection { try $0.scalar("SELECT 1") } == .int64(1))
    }

    @Test func listenersHearNotificationsAndSurviveARestart() async throws {
        guard TestPostgres.url != nil else { #expect(!TestPostgres.required); return }
        let cluster = try ThrowawayPostgres()
        defer { cluster.stop() }
        let heard = Mutex<[String]>([])
        let reconnects = Atomic<Int>(0)
        let listener = PostgresListener(url: cluster.url, channels: ["stratus_test"], onReconnect: { reconnects.add(1, ordering: .relaxed) }) { _, payload in
            heard.withLock { $0.append(payload) }
        }
        listener.start()
        defer { listener.stop() }
        let pool = PostgresPool(url: cluster.url, capacity: 2)
        try pool.withConnection { try $0.execute("SELECT pg_notify($1, $2)", ["stratus_test", "one"]) }
        try await waitUntil { heard.withLock { $0 } == ["one"] }

        try await offPool { try cluster.restart() }
        // The pool's old connections are broken: the next request fails or reconnects, and the one after works.
        _ = try? pool.withConnection { try $0.scalar("SELECT 1") }
        #expect(try pool.withConnection { try $0.scalar("SELECT 1") } == .int64(1))
        try await waitUntil { reconnects.load(ordering: .relaxed) >= 1 }
        try pool.withConnection { try $0.execute("SELECT pg_notify($1, $2)", ["stratus_test", "two"]) }
        try await waitUntil { heard.withLock { $0 } == ["one", "two"] }
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { Issue.record("timed out"); return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
