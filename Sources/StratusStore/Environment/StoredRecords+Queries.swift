import Foundation
import StratusModel

/// Queries over one record type.
extension StoredRecords {
    /// With a `caller` on the public database, records the caller may not read are left out of the page
    /// (the continuation marker still moves past them). With `explain`, the result says which index served it
    /// (the console shows it; preparing the plan costs a statement of its own).
    public func query(_ query: Query, in database: DatabaseID, caller: Caller? = nil, explain: Bool = false) throws(StratusError) -> QueryResult {
        var sink = StoredRecordSink(capacity: min(max(query.resultsLimit, 0), Query.maximumResults))
        let (next, plan) = try stream(query, in: database, caller: caller, explain: explain, into: &sink)
        return QueryResult(records: sink.records, continuationMarker: next, servedBy: QueryShapeReport.index(in: plan))
    }

    /// The same page handed to `sink` record by record as rows are read; returns the continuation marker.
    public func query(_ query: Query, in database: DatabaseID, caller: Caller? = nil, into sink: inout some RecordSink) throws(StratusError) -> String? {
        try stream(query, in: database, caller: caller, into: &sink).marker
    }

    private func stream(_ query: Query, in database: DatabaseID, caller: Caller?, explain: Bool = false,
                        into sink: inout some RecordSink) throws(StratusError) -> (marker: String?, plan: [String]) {
        var streamer: RowStreamer?
        return try scan(query, in: database, caller: caller, explain: explain) { row, type, fields, zones, linkColumn in
            if streamer == nil { streamer = RowStreamer(type: type, fields: fields) }
            try streamer!.stream(row, zoneID: zones(row.int64(RecordColumn.zoneID.position) ?? 0), linkColumn: linkColumn, into: &sink)
        }
    }

    /// Runs a query and hands each readable row of the page to `emit`; returns the continuation marker.
    /// With `explain`, also the engine's plan of the statement (for the console; the API never asks).
    private func scan(_ query: Query, in database: DatabaseID, caller: Caller?, explain: Bool = false,
                      emit: (any SQLRow, CatalogType, [CatalogField], (Int64) -> ZoneID, Int?) throws -> Void) throws(StratusError) -> (marker: String?, plan: [String]) {
        guard query.resultsLimit >= 0 else { throw .badRequest("resultsLimit must not be negative") }
        let marker = try query.continuationMarker.map { (m: String) throws(StratusError) in
            try ContinuationMarker.read(signer, m, fingerprint: ContinuationMarker.fingerprint(query, database: database))
        }
        let started = ContinuousClock.now
        var cost: (steps: Int, rows: Int, sql: String)? = nil
        defer { recordShape(query, since: started, cost) }
        return try readCheckingCatalog { db, catalogOf in
            // The zones come with the schema's generation: the catalog costs no statement of its own.
            let zones = try Self.zones(of: query, in: database, db)
            let catalog = try zones?.generation.map(catalogOf) ?? core.catalog(db)
            guard let type = catalog.type(named: query.recordType) else {
                throw StratusError.badRequest("record type '\(query.recordType.prefix(100))' does not exist in the \(environment.rawValue) schema")
            }
            guard let zones else {
                // Nothing written yet; the query must still be one that would be accepted.
                var compiler = QueryCompiler(type: type, environment: environment, desiredKeys: query.desiredKeys, dialect: db.dialect)
                _ = try compiler.compile(query, zoneCondition: "1 = 0", zoneArguments: [], after: marker)
                return (nil, [])
            }
            let (zoneNames, zoneCondition, zoneArgs, links, _) = zones
            var compiler = QueryCompiler(type: type, environment: environment, desiredKeys: query.desiredKeys, dialect: db.dialect)
            compiler.links = links
            compiler.zoneIDs = Array(zoneNames.keys)
            let autoIndexes = catalog.autoIndexes(of: type.name)
            if db.dialect.readsAutoIndexTables { compiler.autoIndexes = autoIndexes }
            let compiled = try compiler.compile(query, zoneCondition: zoneCondition, zoneArguments: zoneArgs, after: marker)
            let limit = max(1, min(query.resultsLimit == 0 ? Query.maximumResults : query.resultsLimit, Query.maximumResults))
            let zoneLookup: (Int64) -> ZoneID = { zoneNames[$0] ?? .defaultZone }
            let base = CatalogType.systemColumns.count + compiled.fieldCount
            var lastKeys: [SQLValue] = []
            var more = false
            // Decode while stepping: rows are read from the statement once, never copied into an array first.
            var scanned = 0
            let filter = database.scope == .public ? caller : nil
            try db.eachOfPage(compiled.sql, compiled.arguments) { row in
                if scanned == limit { more = true; return }
                scanned += 1
                // READ on the public database, judged against the record's creator (its created_by column).
                if filter == nil || SecurityPolicy.allows(.read, grants: type.grants, caller: filter!, creator: row.string(RecordColumn.createdBy.position)) {
                    try emit(row, type, compiler.fields, zoneLookup, links ? base + compiled.sortKeyCount : nil)
                }
                if scanned == limit { lastKeys = (0..<compiled.sortKeyCount).map { row.sqlValue(base + $0) } }
            }
            // SQLite counts the steps its machine took (the console's cost column); PostgreSQL does not say.
            let steps = (db as? SQLiteSession)?.virtualMachineSteps(compiled.sql) ?? 0
            cost = (steps, scanned, compiled.sql)
            let served = db.dialect.readsAutoIndexTables ? compiler.usedAutoIndex
                : autoIndexes.first { $0.isReady && $0.serves(QueryShape(query)) }?.name
            if let used = served { queryShapes.upkeep.used.withLock { _ = $0.insert(used) } }
            let plan = explain ? ((try? QueryPlan.explain(compiled.sql, db, arguments: compiled.arguments)) ?? []) : []
            guard more else { return (nil, plan) }
            return (ContinuationMarker.make(signer, fingerprint: ContinuationMarker.fingerprint(query, database: database), values: lastKeys), plan)
        }
    }

    /// Counts a query's shape with what it cost (the Query shapes page, automatic indexes); nothing for a query
    /// that did not run.
    private func recordShape(_ query: Query, since started: ContinuousClock.Instant, _ cost: (steps: Int, rows: Int, sql: String)?) {
        guard let cost else { return }
        let elapsed = ContinuousClock.now - started
        queryShapes.upkeep.shapes.record(QueryShape(query), micros: Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000),
                                         steps: cost.steps, rows: cost.rows, sql: cost.sql)
    }

    /// The zones a query reads (by row id), as a condition on the type's table, with the schema's generation (nil
    /// when no row said it); nil when it names a zone that has not been written to yet. In the shared database a
    /// query names one zone shared with the caller, and a participant of hierarchy shares reads the records those
    /// shares cover: one set per share, not a check per row.
    private static func zones(of query: Query, in database: DatabaseID, _ db: any SQLSession)
        throws -> (names: [Int64: ZoneID], condition: String, arguments: [SQLValue], links: Bool, generation: Int64?)? {
        if database.scope == .shared && query.zoneID == nil {
            throw StratusError.badRequest("a query in the shared database needs the zoneID of a zone shared with you")
        }
        guard let zoneID = query.zoneID else {
            let (names, generation) = try ZoneRow.liveNames(db, database)
            return (names, "t.zone_id IN (\(names.keys.map(String.init).joined(separator: ",").nonEmpty ?? "NULL"))", [], false, generation)
        }
        let (zoneRow, access) = try SharedZones.resolve(db, database, zoneID)
        guard let zone = zoneRow else { return nil }
        var condition = "t.zone_id = ?"
        var arguments: [SQLValue] = [.int64(zone.id)]
        if let access, access.zonePermission == nil {
            condition += " AND " + RecordLinks.coveredCondition(shares: Array(access.shares.keys))
            arguments.append(.int64(zone.id))
        }
        let (generation, links) = try RecordLinks.generationAndLinks(db, zone: zone.id)
        return ([zone.id: zone.zoneID], condition, arguments, links, generation)
    }
}
