import StratusModel

/// `faults` (control database): the injected faults switched on, with how often each matched and fired. Every
/// statement on it is here, and its migrations.
enum FaultRows {
    enum Column: String, TableColumn {
        case id, container, environment, operation, kind, remaining, probability, seed, injected, stage, zone
        case retryAfter = "retry_after", latency = "latency_ms", createdAt = "created_at"
        case expiresAt = "expires_at", user = "user_name", recordType = "record_type", recordName = "record_name"
        case serverFields = "server_fields"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v6-faults", ddl: """
            CREATE TABLE faults(id INTEGER PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL, operation TEXT NOT NULL,
                kind TEXT NOT NULL, remaining INTEGER, probability REAL, seed INTEGER NOT NULL, retry_after INTEGER,
                latency_ms INTEGER NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                matched INTEGER NOT NULL DEFAULT 0, injected INTEGER NOT NULL DEFAULT 0);
            """)
        // Where a fault hits (before, after-commit, per-record), its scope, and the conflict lab's server fields.
        m.add("v8-fault-scope", ddl: """
            ALTER TABLE faults ADD COLUMN stage TEXT NOT NULL DEFAULT 'before';
            ALTER TABLE faults ADD COLUMN user_name TEXT;
            ALTER TABLE faults ADD COLUMN zone TEXT;
            ALTER TABLE faults ADD COLUMN record_type TEXT;
            ALTER TABLE faults ADD COLUMN record_name TEXT;
            ALTER TABLE faults ADD COLUMN server_fields TEXT;
            """)
    }

    private static let fault = Selection<Column>([.id, .container, .environment, .operation, .kind, .remaining,
                                                  .probability, .seed, .retryAfter, .latency,
                                                  .createdAt, .expiresAt, .injected, .stage, .user, .zone, .recordType, .recordName, .serverFields])

    private static func fault(_ r: any SQLRow) -> Fault? {
        let row = NamedRow(r, fault)
        guard let container = try? ContainerID(row.string(.container) ?? ""), let environment = ContainerEnvironment(rawValue: row.string(.environment) ?? ""),
              let kind = Fault.Kind(rawValue: row.string(.kind) ?? "") else { return nil }
        var f = Fault(id: row.int64(.id) ?? 0, container: container, environment: environment,
                      operation: row.string(.operation) ?? "", kind: kind,
                      remaining: row.int64(.remaining).map(Int.init), probability: row.double(.probability), seed: UInt64(bitPattern: row.int64(.seed) ?? 0),
                      retryAfter: row.int64(.retryAfter).map(Int.init), latencyMilliseconds: Int(row.int64(.latency) ?? 0), createdAt: row.int64(.createdAt) ?? 0,
                      expiresAt: row.int64(.expiresAt) ?? 0, injected: Int(row.int64(.injected) ?? 0))
        f.stage = Fault.Stage(rawValue: row.string(.stage) ?? "") ?? .before
        f.user = row.string(.user)
        f.zone = row.string(.zone)
        f.recordType = row.string(.recordType)
        f.recordName = row.string(.recordName)
        f.serverFields = row.string(.serverFields)
        return f
    }

    /// A checked fault's row; returns its id.
    static func insert(_ f: Fault, _ s: any SQLSession) throws -> Int64 {
        try s.int64("""
            INSERT INTO faults(container, environment, operation, kind, remaining, probability, seed, retry_after, latency_ms, created_at, expires_at,
                               stage, user_name, zone, record_type, record_name, server_fields)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """, [f.container.rawValue, f.environment.rawValue, f.operation, f.kind.rawValue, f.remaining, f.probability,
                  Int64(bitPattern: f.seed), f.retryAfter, f.latencyMilliseconds, f.createdAt, f.expiresAt,
                  f.stage.rawValue, f.user, f.zone, f.recordType, f.recordName, f.serverFields]) ?? 0
    }

    /// Faults of a container (or every container), newest first, expired and spent ones included.
    static func all(container: ContainerID?, _ s: any SQLSession) throws -> [Fault] {
        try s.all("SELECT \(fault.sql) FROM faults WHERE CAST(?1 AS TEXT) IS NULL OR container = ?1 ORDER BY id DESC",
                  [container?.rawValue], fault)
    }

    /// The faults that have not expired at `now`.
    static func live(at now: Int64, _ s: any SQLSession) throws -> [Fault] {
        try s.all("SELECT \(fault.sql) FROM faults WHERE expires_at > ?", [now], fault)
    }

    /// Deletes one fault (by id), or every fault of a container and environment; nil matches all.
    static func delete(id: Int64?, container: ContainerID?, environment: ContainerEnvironment?,
                       _ s: any SQLSession) throws {
        try s.execute("""
            DELETE FROM faults WHERE (CAST(?1 AS BIGINT) IS NULL OR id = ?1) AND (CAST(?2 AS TEXT) IS NULL OR container = ?2)
                AND (CAST(?3 AS TEXT) IS NULL OR environment = ?3)
            """, id, container?.rawValue, environment?.rawValue)
    }

    /// Counts a request the live fault matched; how many it has matched so far, nil when it expired or is spent.
    static func match(id: Int64, at now: Int64, _ s: any SQLSession) throws -> Int64? {
        try s.int64("UPDATE faults SET matched = matched + 1 WHERE id = ? AND expires_at > ? AND (remaining IS NULL OR remaining > 0) RETURNING matched", [id, now])
    }

    /// Counts a fault that fired, and spends one of its count.
    static func fired(id: Int64, _ s: any SQLSession) throws {
        try s.execute("UPDATE faults SET injected = injected + 1, remaining = CASE WHEN remaining IS NULL THEN NULL ELSE remaining - 1 END WHERE id = ?", id)
    }
}
