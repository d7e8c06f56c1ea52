import Foundation
import StratusModel

/// Query shapes: what the queries an app really runs look like, what each costs (the console's Query shapes page),
/// and the composite indexes Stratus builds for the frequent expensive ones.
public final class QueryShapeStore: EnvironmentPart {
    let core: EnvironmentDatabase
    /// Query shapes and automatic indexes between the keeper's visits.
    let upkeep: QueryShapeUpkeep

    init(core: EnvironmentDatabase) {
        self.core = core
        upkeep = QueryShapeUpkeep(policy: core.autoIndexPolicy)
    }

    /// Whether this environment logs query shapes and builds automatic indexes: on both engines (on PostgreSQL the
    /// index is a composite index of the type's table that its planner uses by itself; see `PostgresAutoIndexes`).
    public var keepsQueryShapes: Bool { true }

    /// When Stratus builds indexes for query shapes (`ServerConfig.autoIndexes`): what the server's keeper decides by,
    /// and the caps every build keeps.
    public var autoIndexPolicy: AutoIndexPolicy { upkeep.policy }

    /// Writes what the shape log gathered (at most once a minute unless `force`): totals add up, the latest window's
    /// percentiles replace the old ones. Returns each written shape's totals, for the server's QueryShapeKeeper to
    /// pick the shapes worth an index; it calls this once a minute, and closing the environment once more. No read
    /// path does.
    @discardableResult
    public func recordQueryShapes(force: Bool = true) -> [QueryShapeTotals] {
        guard let gathered = upkeep.shapes.take(force: force), !gathered.isEmpty else { return [] }
        let now = WallClock.nowMillis()
        var totals: [QueryShapeTotals] = []
        try? write { s, _ in
            for (shape, st) in gathered {
                let spec = String(decoding: (try? JSONEncoder().encode(shape)) ?? Data(), as: UTF8.self)
                guard let (calls, steps, rows) = try QueryShapeRows.record(shape, st, spec: spec, at: now,
                        s) else { continue }
                // SQLite says what a shape costs (its machine's steps per row returned); PostgreSQL does not.
                totals.append(QueryShapeTotals(shape: shape, calls: calls,
                                               stepsPerRow: s.dialect.countsSteps ? Double(steps) / Double(max(rows,
                        1)) : nil))
            }
        }
        return totals
    }

    /// Every shape this environment has run, most called first, with SQLite's plan for it: what the table holds
    /// plus what the shape log gathered since (merged here, not written: a read never writes).
    public func all() throws(StratusError) -> [QueryShapeReport] {
        let pending = upkeep.shapes.peek()
        let byName = Dictionary(pending.map { ($0.key.description, ($0.key, $0.value)) }, uniquingKeysWith: { a,
                                _ in a })
        let now = WallClock.nowMillis()
        return try read { s, _ in
            var seen: Set<String> = []
            var reports = try QueryShapeRows.all(s).map { row -> QueryShapeReport in
                var row = row
                seen.insert(row.shape)
                if let (_, st) = byName[row.shape] {
                    (row.calls, row.micros, row.steps, row.rows) = (row.calls + st.calls, row.micros + st.micros,
                                                                    row.steps + st.steps, row.rows + st.rows)
                    (row.p50, row.p99, row.lastAt, row.sql) = (st.percentile(0.5), st.percentile(0.99), now, st.sql)
                }
                return Self.report(shape: row.shape, recordType: row.recordType, calls: row.calls, micros: row.micros,
                                   steps: row.steps, rows: row.rows,
                                   p50: row.p50, p99: row.p99, lastAt: row.lastAt, sql: row.sql, s)
            }
            for (name, (shape, st)) in byName where !seen.contains(name) {
                reports.append(Self.report(shape: name, recordType: shape.recordType, calls: st.calls,
                                           micros: st.micros, steps: st.steps, rows: st.rows,
                                           p50: st.percentile(0.5), p99: st.percentile(0.99), lastAt: now, sql: st.sql, s))
            }
            return reports.sorted { ($0.calls, $1.shape) > ($1.calls, $0.shape) }
        }
    }

    private static func report(shape: String, recordType: String, calls: Int, micros: Int, steps: Int, rows: Int,
                               p50: Int, p99: Int,
                               lastAt: Int64, sql: String, _ s: any SQLSession) -> QueryShapeReport {
        let plan = (try? QueryPlan.explain(sql, s)) ?? ["(no longer valid for the schema)"]
        return QueryShapeReport(shape: shape, recordType: recordType, calls: calls, p50Milliseconds: Double(p50) / 1000,
                                p99Milliseconds: Double(p99) / 1000, meanMilliseconds: calls == 0 ? 0 : Double(micros) / Double(calls) / 1000,
                                stepsPerRow: Double(steps) / Double(max(rows, 1)), lastAt: lastAt, plan: plan)
    }

    // MARK: automatic indexes

    /// Moves the `last_used_at` of the indexes queries used since the last call, and drops unpinned ones unused for
    /// `unusedFor` milliseconds. Writes nothing when there is nothing to move or drop.
    public func tendAutoIndexes(dropUnusedFor unusedFor: Int64) throws(StratusError) {
        let used = upkeep.used.withLock { u in defer { u.removeAll() }; return u }
        let now = WallClock.nowMillis()
        let stale = { (ai: AutoIndex) in ai.isReady && !ai.pinned && now - ai.lastUsedAt > unusedFor && !used.contains(ai.name) }
        guard !used.isEmpty || core.cachedCatalog.read({ $0.autoIndexes.contains(where: stale) }) else { return }
        try write { s, catalog in
            for name in used { try AutoIndexes.used(name, at: now, s) }
            var dropped = false
            for ai in try AutoIndexes.load(s) where stale(ai) {
                try AutoIndexes.drop(ai.name, s)
                dropped = true
            }
            if dropped { catalog = try SchemaStorage.load(s) }
        }
    }

    /// When the build of `shape`'s index last failed, if it has (see `AutoIndexPolicy.retryFailedAfter`).
    public func lastFailedBuild(of shape: QueryShape) -> Int64? { upkeep.failures.withLock { $0[shape.description] } }

    /// Claims the environment's one build at a time; false while another runs. `endBuild` gives it back.
    public func claimBuild() -> Bool { upkeep.building.withLock { b in defer { b = true }; return !b } }
    public func endBuild() { upkeep.building.withLock { $0 = false } }

    /// Builds the composite index that serves `shape` (equality fields, then its sort or range field), within the
    /// per-type, per-environment and size caps, and returns it complete.
    ///
    /// The build never holds the writer for long: one short transaction creates the empty index table and the
    /// triggers that keep it current from then on, then steps of a few thousand rows, each its own transaction of
    /// about `stepMilliseconds`, copy the existing rows in id order; writers run between steps. The worst a write
    /// waits is one step (the longest is kept with the index), where CREATE INDEX would hold the writer for the
    /// whole table. Queries use the index only once the last step has marked it complete. A step
    /// that fails (disk full) drops what was built, so the index is absent rather than half there, and the shape
    /// is tried again after `retryFailedAfter`; a build cut short by a crash is finished after the restart.
    @discardableResult
    public func buildAutoIndex(for shape: QueryShape, pinned: Bool = false) throws(StratusError) -> AutoIndex {
        let started = try startAutoIndex(for: shape, pinned: pinned)
        return started.isReady ? started : try finishAutoIndex(started.name)
    }

    /// The first step of a build (see `buildAutoIndex`); an index that already serves the shape is returned as it is.
    public func startAutoIndex(for shape: QueryShape, pinned: Bool) throws(StratusError) -> AutoIndex {
        guard shape.wantsCompositeIndex, let order = shape.orderField else {
            throw StratusError.badRequest("shape '\(shape.description.prefix(200))' is not one a composite index serves: it needs equality fields and one sort or range field, and no other filters")
        }
        let policy = upkeep.policy
        return try write { s, catalog in
            guard let type = catalog.type(named: shape.recordType) else { throw StratusError.badRequest("record type '\(shape.recordType.prefix(100))' does not exist") }
            if let existing = catalog.autoIndexes.first(where: { $0.serves(shape) }) { return existing }
            let now = WallClock.nowMillis()
            var ai = AutoIndex(name: "", recordType: type.name, equalityFields: shape.equalities, orderField: order,
                               shape: shape.description,
                               pinned: pinned, createdAt: now, lastUsedAt: now)
            guard let cols = AutoIndexes.columns(ai, type) else {
                throw StratusError.badRequest("the fields of shape '\(shape.description.prefix(200))' cannot share a B-tree index (lists, locations, assets and bytes cannot)")
            }
            guard catalog.autoIndexes(of: type.name).count < policy.maximumPerType,
                  catalog.autoIndexes.count < policy.maximumPerEnvironment else {
                throw StratusError.badRequest("record type '\(type.name)' has \(policy.maximumPerType) automatic indexes already (or the environment \(policy.maximumPerEnvironment)): drop one first")
            }
            ai.estimatedBytes = try AutoIndexes.estimatedBytes(type: type, columns: cols, s)
            let total = catalog.autoIndexes.reduce(0) { $0 + $1.estimatedBytes }
            guard total + ai.estimatedBytes <= policy.maximumTotalBytes else {
                throw StratusError.badRequest("an index for shape '\(shape.description.prefix(200))' would take about \(ai.estimatedBytes >> 20) MB, past the \(policy.maximumTotalBytes >> 20) MB the automatic indexes of this environment may use (\(total >> 20) MB now): drop one first")
            }
            ai.name = AutoIndexes.name(typeID: type.id, columns: cols)
            try AutoIndexes.start(ai, type, columns: cols, s)
            catalog = try SchemaStorage.load(s)
            return catalog.autoIndexes.first { $0.name == ai.name } ?? ai
        }
    }

    /// Copies the rows into a started index, step by step, until it is complete (see `buildAutoIndex`).
    @discardableResult
    public func finishAutoIndex(_ name: String) throws(StratusError) -> AutoIndex {
        if sqlite == nil { return try finishOnPostgres(name) }
        let policy = upkeep.policy
        let started = ContinuousClock.now
        var rows = 1_000
        var longest = 0.0
        while true {
            let stepStarted = ContinuousClock.now
            let done: Bool
            do {
                done = try sqliteWrite { s, catalog in
                    guard var ai = catalog.autoIndexes.first(where: { $0.name == name }), !ai.isReady else { return true }
                    guard let type = catalog.type(named: ai.recordType), let cols = AutoIndexes.columns(ai,
                            type) else { return true }
                    guard try AutoIndexes.fill(ai, type, columns: cols, limit: rows, s).done else { return false }
                    ai.builtThrough = nil
                    ai.buildMilliseconds = (ContinuousClock.now - started).milliseconds
                    ai.longestStepMilliseconds = max(longest, (ContinuousClock.now - stepStarted).milliseconds)
                    try AutoIndexes.setSpec(ai, s)
                    catalog = try SchemaStorage.load(s)
                    return true
                }
            } catch {
                // Leave no half-built index behind (its triggers would slow every write for nothing).
                let shape = core.cachedCatalog.read { $0.autoIndexes.first { $0.name == name }?.shape }
                try? sqliteWrite { s, catalog in
                    try AutoIndexes.drop(name, s)
                    catalog = try SchemaStorage.load(s)
                }
                if let shape { upkeep.failures.withLock { $0[shape] = WallClock.nowMillis() } }
                throw error
            }
            let took = (ContinuousClock.now - stepStarted).milliseconds
            longest = max(longest, took)
            if done { break }
            if took < policy.stepMilliseconds / 2 { rows = min(rows * 2,
                                                               200_000) } else if took > policy.stepMilliseconds * 2 { rows = max(rows / 2, 100) }
            usleep(200)  // let a waiting writer in first
        }
        guard let ai = try autoIndexes().first(where: { $0.name == name }) else {
            throw StratusError(.notFound, "automatic index '\(name.prefix(100))' was dropped while it was being built")
        }
        return ai
    }

    /// Starts building the index for a shape the console lists (its description), pinned; `finishAutoIndex` copies
    /// the rows (the console runs it on a thread of its own). The returned index says how far the build has come.
    public func startAutoIndex(forShape description: String) throws(StratusError) -> AutoIndex {
        let pending = upkeep.shapes.peek().keys.first { $0.description == description }
        let spec: String? = pending != nil ? nil : try read { s, _ in try QueryShapeRows.spec(of: description, s) }
        guard let shape = pending ?? spec.flatMap({ try? JSONDecoder().decode(QueryShape.self,
                from: Data($0.utf8)) }) else {
            throw StratusError(.notFound, "no query shape '\(description.prefix(200))' has run in this environment")
        }
        return try startAutoIndex(for: shape, pinned: true)
    }

    /// How far a build has come (0…1): the share of the type's rows, by id, copied so far.
    public func autoIndexProgress(_ ai: AutoIndex) -> Double {
        guard let through = ai.builtThrough else { return 1 }
        guard sqlite != nil else { return 0 }  // PostgreSQL builds in one statement: not started, or done
        let bounds: (Int64, Int64)? = try? sqliteRead { s, catalog in
            guard let type = catalog.type(named: ai.recordType) else { return nil }
            return try AutoIndexes.idRange(of: type, s)
        }
        guard let (low, high) = bounds, high > low else { return 0 }
        return min(1, max(0, Double(through - low) / Double(high - low)))
    }

    /// Forgets what the shape log has counted, written and pending: the shapes start from nothing (a benchmark that
    /// reuses its data measures learning again; an administrator's fresh start).
    public func resetQueryShapes() throws(StratusError) {
        _ = upkeep.shapes.take(force: true)
        try write { s, _ in try QueryShapeRows.removeAll(s) }
    }

    /// The automatic indexes of this environment.
    public func autoIndexes() throws(StratusError) -> [AutoIndex] { try read { _, catalog in catalog.autoIndexes } }

    public func setAutoIndexPinned(_ name: String, _ pinned: Bool) throws(StratusError) {
        try write { s, catalog in
            guard catalog.autoIndexes.contains(where: { $0.name == name }) else { throw StratusError(.notFound,
                    "no automatic index '\(name.prefix(100))'") }
            try AutoIndexes.setPinned(name, pinned, s)
            catalog = try SchemaStorage.load(s)
        }
    }

    public func dropAutoIndex(_ name: String) throws(StratusError) {
        try write { s, catalog in
            guard catalog.autoIndexes.contains(where: { $0.name == name }) else { throw StratusError(.notFound,
                    "no automatic index '\(name.prefix(100))'") }
            try AutoIndexes.drop(name, s)
            catalog = try SchemaStorage.load(s)
        }
    }
}

extension QueryShapeStore {
    /// The shapes of the queries this environment has run (its `query_shapes` log; none on PostgreSQL, which keeps
    /// no such log).
    public func queriedShapes() throws(StratusError) -> [QueryShape] {
        let pending = upkeep.shapes.peek().keys
        let logged = try read { s, _ in
            try QueryShapeRows.specs(s).compactMap { try? JSONDecoder().decode(QueryShape.self, from: Data($0.utf8)) }
        }
        return logged + pending.filter { !logged.contains($0) }.sorted { $0.description < $1.description }
    }
}

extension QueryShapeStore {
    /// PostgreSQL's build (see `PostgresAutoIndexes`): the index built concurrently on one connection outside any
    /// transaction, then its row marked complete (which moves the schema generation, so every node's catalog knows).
    /// When another node holds the build, the index is returned as it is, not ready.
    func finishOnPostgres(_ name: String) throws(StratusError) -> AutoIndex {
        let catalog = try read { _, catalog in catalog }
        guard let ai = catalog.autoIndexes.first(where: { $0.name == name }) else {
            throw StratusError(.notFound, "automatic index '\(name.prefix(100))' was dropped while it was being built")
        }
        guard !ai.isReady else { return ai }
        guard let type = catalog.type(named: ai.recordType), let cols = AutoIndexes.columns(ai, type) else {
            throw StratusError(.notFound, "the fields of automatic index '\(name.prefix(100))' are gone")
        }
        let started = ContinuousClock.now
        let built: Bool
        do {
            built = try core.postgresAutocommit { s in try PostgresAutoIndexes.build(ai, type, columns: cols, s) }
        } catch {
            try? write { s, catalog in
                try AutoIndexes.forgetRow(name, s)
                catalog = try SchemaStorage.load(s)
            }
            upkeep.failures.withLock { $0[ai.shape] = WallClock.nowMillis() }
            throw error
        }
        guard built else { return ai }
        let took = (ContinuousClock.now - started).milliseconds
        return try write { s, catalog in
            var done = ai
            done.builtThrough = nil
            done.buildMilliseconds = took
            done.longestStepMilliseconds = 0  // no step held a writer: the build ran beside them
            try AutoIndexes.complete(done, s)
            catalog = try SchemaStorage.load(s)
            return catalog.autoIndexes.first { $0.name == name } ?? done
        }
    }
}
