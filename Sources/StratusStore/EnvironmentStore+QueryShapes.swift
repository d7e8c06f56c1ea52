import Foundation
import GRDB
import GRDBSQLite
import StratusModel

/// Query shapes: what the queries an app really runs look like, what each costs (the console's Query shapes page),
/// and the composite indexes Stratus builds for the frequent expensive ones.
extension EnvironmentStore {
    /// Writes what the shape log gathered, at most once a minute (or now with `force`): totals add up, the latest
    /// window's percentiles replace the old ones. Then looks after automatic indexes (see `maintainAutoIndexes`).
    func flushQueryShapesIfDue(force: Bool = false) {
        guard let gathered = shapeLog.take(force: force), !gathered.isEmpty else { return }
        let now = Clock.nowMillis()
        var candidates: [(QueryShape, Double)] = []
        try? pool.write { db in
            let st = try db.cachedStatement(sql: """
                INSERT INTO query_shapes(shape, record_type, calls, micros, steps, rows, p50_us, p99_us, last_at, sql, spec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(shape) DO UPDATE SET calls = calls + excluded.calls, micros = micros + excluded.micros, steps = steps + excluded.steps,
                    rows = rows + excluded.rows, p50_us = excluded.p50_us, p99_us = excluded.p99_us, last_at = excluded.last_at, sql = excluded.sql
                RETURNING calls, steps, rows
                """)
            for (shape, s) in gathered {
                let spec = String(decoding: (try? JSONEncoder().encode(shape)) ?? Data(), as: UTF8.self)
                guard let totals = try Row.fetchOne(st, arguments: [shape.description, shape.recordType, s.calls, s.micros, s.steps, s.rows,
                                                                    s.percentile(0.5), s.percentile(0.99), now, s.sql, spec]) else { continue }
                let calls: Int = totals[0], steps: Int = totals[1], rows: Int = totals[2]
                let perRow = Double(steps) / Double(max(rows, 1))
                if shape.wantsCompositeIndex, calls >= autoIndexPolicy.minimumCalls, perRow >= autoIndexPolicy.minimumStepsPerRow {
                    candidates.append((shape, Double(calls) * perRow))
                }
            }
        }
        maintainAutoIndexes(candidates: candidates.sorted { $0.1 > $1.1 }.map(\.0))
    }

    /// Every shape this environment has run, most called first, with SQLite's plan for it.
    public func queryShapes() throws(StratusError) -> [QueryShapeReport] {
        flushQueryShapesIfDue(force: true)
        return try read { db, _ in
            try Row.fetchAll(db, sql: "SELECT shape, record_type, calls, micros, steps, rows, p50_us, p99_us, last_at, sql FROM query_shapes ORDER BY calls DESC, shape")
                .map { r in
                    let calls: Int = r[2], micros: Int = r[3], steps: Int = r[4], rows: Int = r[5]
                    let plan = (try? Self.explain(r[9], db)) ?? ["(no longer valid for the schema)"]
                    return QueryShapeReport(shape: r[0], recordType: r[1], calls: calls, p50Milliseconds: Double(r[6] as Int) / 1000,
                                            p99Milliseconds: Double(r[7] as Int) / 1000, meanMilliseconds: calls == 0 ? 0 : Double(micros) / Double(calls) / 1000,
                                            stepsPerRow: Double(steps) / Double(max(rows, 1)), lastAt: r[8], plan: plan)
                }
        }
    }

    /// SQLite's plan for a statement, its parameters left NULL (the plan a prepared statement gets before its values).
    static func explain(_ sql: String, _ db: Database) throws -> [String] {
        let st = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
        let count = Int(sqlite3_bind_parameter_count(st.sqliteStatement))
        return try Row.fetchAll(st, arguments: StatementArguments(Array(repeating: DatabaseValue.null, count: count))).map { $0["detail"] as String? ?? "" }
    }

    // MARK: automatic indexes

    /// Moves the used indexes' `last_used_at`, drops unpinned ones unused for `dropUnusedAfter`, and builds the index
    /// of the best candidate shape that has none, on a thread of its own (one build at a time per environment).
    func maintainAutoIndexes(candidates: [QueryShape]) {
        let used = autoIndexUse.withLock { u in defer { u.removeAll() }; return u }
        let now = Clock.nowMillis()
        let policy = autoIndexPolicy
        try? pool.write { db in
            for name in used { try db.execute(sql: "UPDATE auto_indexes SET last_used_at = ? WHERE name = ?", arguments: [now, name]) }
            for ai in try AutoIndexes.load(db) where !ai.pinned && now - ai.lastUsedAt > policy.dropUnusedAfter {
                try AutoIndexes.drop(ai.name, db)
            }
        }
        guard policy.enabled, !candidates.isEmpty else { return }
        let catalog = cachedCatalog.withLock { $0 }
        guard let shape = candidates.first(where: { c in !catalog.autoIndexes.contains { $0.serves(c) } }) else { return }
        guard autoIndexBuilding.withLock({ b in defer { b = true }; return !b }) else { return }
        Thread { [self] in
            defer { autoIndexBuilding.withLock { $0 = false } }
            _ = try? buildAutoIndex(for: shape)
        }.start()
    }

    /// Builds the composite index that serves `shape` (equality fields, then its sort or range field), within the
    /// per-type and per-environment caps. SQLite's CREATE INDEX reads the table once and holds the writer meanwhile
    /// (about a second per million records on this class of machine); the time it took is kept with the index.
    @discardableResult
    public func buildAutoIndex(for shape: QueryShape, pinned: Bool = false) throws(StratusError) -> AutoIndex {
        guard shape.wantsCompositeIndex, let order = shape.orderField else {
            throw StratusError.badRequest("shape '\(shape.description.prefix(200))' is not one a composite index serves: it needs equality fields and one sort or range field, and no other filters")
        }
        return try write { db, catalog in
            guard let type = catalog.type(named: shape.recordType) else { throw StratusError.badRequest("record type '\(shape.recordType.prefix(100))' does not exist") }
            if let existing = catalog.autoIndexes.first(where: { $0.serves(shape) }) { return existing }
            let now = Clock.nowMillis()
            var ai = AutoIndex(name: "", recordType: type.name, equalityFields: shape.equalities, orderField: order, shape: shape.description,
                               pinned: pinned, createdAt: now, lastUsedAt: now)
            guard let cols = AutoIndexes.columns(ai, type) else {
                throw StratusError.badRequest("the fields of shape '\(shape.description.prefix(200))' cannot share a B-tree index (lists, locations, assets and bytes cannot)")
            }
            guard catalog.autoIndexes(of: type.name).count < autoIndexPolicy.maximumPerType,
                  catalog.autoIndexes.count < autoIndexPolicy.maximumPerEnvironment else {
                throw StratusError.badRequest("record type '\(type.name)' has \(autoIndexPolicy.maximumPerType) automatic indexes already (or the environment \(autoIndexPolicy.maximumPerEnvironment)): drop one first")
            }
            ai.name = AutoIndexes.name(typeID: type.id, columns: cols)
            let started = ContinuousClock.now
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(ai.name) ON \(type.table)(\(cols.joined(separator: ", ")))")
            let took = ContinuousClock.now - started
            ai.buildMilliseconds = Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15
            try AutoIndexes.create(ai, type, db)
            catalog = try SchemaStorage.load(db)
            return ai
        }
    }

    /// Builds the index for a shape the console lists (its description), now.
    public func buildAutoIndex(forShape description: String) throws(StratusError) -> AutoIndex {
        let spec: String? = try read { db, _ in try String.fetchOne(db, sql: "SELECT spec FROM query_shapes WHERE shape = ?", arguments: [description]) }
        guard let spec, let shape = try? JSONDecoder().decode(QueryShape.self, from: Data(spec.utf8)) else {
            throw StratusError(.notFound, "no query shape '\(description.prefix(200))' has run in this environment")
        }
        return try buildAutoIndex(for: shape, pinned: true)
    }

    /// The automatic indexes of this environment.
    public func autoIndexes() throws(StratusError) -> [AutoIndex] { try read { _, catalog in catalog.autoIndexes } }

    public func setAutoIndexPinned(_ name: String, _ pinned: Bool) throws(StratusError) {
        try write { db, catalog in
            guard catalog.autoIndexes.contains(where: { $0.name == name }) else { throw StratusError(.notFound, "no automatic index '\(name.prefix(100))'") }
            try db.execute(sql: "UPDATE auto_indexes SET pinned = ? WHERE name = ?", arguments: [pinned, name])
            _ = try SchemaStorage.bumpGeneration(db)
            catalog = try SchemaStorage.load(db)
        }
    }

    public func dropAutoIndex(_ name: String) throws(StratusError) {
        try write { db, catalog in
            guard catalog.autoIndexes.contains(where: { $0.name == name }) else { throw StratusError(.notFound, "no automatic index '\(name.prefix(100))'") }
            try AutoIndexes.drop(name, db)
            catalog = try SchemaStorage.load(db)
        }
    }
}
