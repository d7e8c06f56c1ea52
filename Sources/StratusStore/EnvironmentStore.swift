import Foundation
import GRDB
import StratusModel
import Synchronization

/// One container environment: one SQLite file holding its public database, every user's private and shared
/// databases, its schema and its change log, plus its asset directory.
///
/// All writes go through one `DatabasePool` writer, each in one transaction that keeps every invariant
/// (record rows, index tables, change log, asset counts) in step. Reads run concurrently from the pool.
public final class EnvironmentStore: Sendable {
    public let container: ContainerID
    public let environment: Environment
    let pool: DatabasePool
    let assets: AssetStore
    let signer: TokenSigner
    private let cachedCatalog: Mutex<Catalog>

    init(container: ContainerID, environment: Environment, file: URL, assetsDirectory: URL) throws {
        self.container = container
        self.environment = environment
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32000; PRAGMA temp_store = MEMORY; PRAGMA wal_autocheckpoint = 10000; PRAGMA foreign_keys = ON")
            db.add(function: DatabaseFunction("stratus_distance", argumentCount: 4, pure: true) { v in
                guard let a = Double.fromDatabaseValue(v[0]), let b = Double.fromDatabaseValue(v[1]),
                      let c = Double.fromDatabaseValue(v[2]), let d = Double.fromDatabaseValue(v[3]) else { return nil }
                return Location.distance(a, b, c, d)
            })
        }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        pool = try DatabasePool(path: file.path, configuration: config)
        try EnvironmentMigrations.migrator.migrate(pool)
        let (secret, catalog) = try pool.write { db -> (Data, Catalog) in
            if let s = try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'secret'") { return (s, try SchemaStorage.load(db)) }
            var bytes = [UInt8](repeating: 0, count: 32)
            var rng = SystemRandomNumberGenerator()
            for i in bytes.indices { bytes[i] = rng.next() }
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES ('secret', ?)", arguments: [Data(bytes)])
            return (Data(bytes), try SchemaStorage.load(db))
        }
        signer = TokenSigner(secret: secret)
        cachedCatalog = Mutex(catalog)
        assets = AssetStore(root: assetsDirectory)
    }

    // MARK: catalog

    /// The catalog as of this transaction: reloaded only when another writer (or process) changed the schema.
    func catalog(_ db: Database) throws -> Catalog {
        let generation = try SchemaStorage.generation(db)
        let cached = cachedCatalog.withLock { $0 }
        if cached.generation == generation { return cached }
        let fresh = try SchemaStorage.load(db)
        publish(fresh)
        return fresh
    }

    private func publish(_ c: Catalog) {
        cachedCatalog.withLock { if $0.generation < c.generation { $0 = c } }
    }

    func read<T>(_ body: (Database, Catalog) throws -> T) throws(StratusError) -> T {
        try guarded { try pool.read { db in try body(db, try catalog(db)) } }
    }

    /// A write transaction with the catalog; a changed catalog is published once the transaction commits.
    func write<T>(_ body: (Database, inout Catalog) throws -> T) throws(StratusError) -> T {
        let (result, catalog) = try guarded {
            try pool.write { db -> (T, Catalog) in
                var c = try self.catalog(db)
                let r = try body(db, &c)
                return (r, c)
            }
        }
        publish(catalog)
        return result
    }

    // MARK: schema

    public func schema() throws(StratusError) -> Schema { try read { _, c in c.schema } }

    /// The changes that `target` would make, with refusals for anything that would lose Production data.
    public func diff(to target: Schema, protecting protected: Schema?) throws(StratusError) -> SchemaDiff {
        try target.validate()
        return SchemaDiff.between(try schema(), target, protecting: protected)
    }

    /// Makes the schema equal to `target` in one transaction, or changes nothing if any change is refused.
    @discardableResult
    public func applySchema(_ target: Schema, protecting protected: Schema?, deployedBy: String? = nil) throws(StratusError) -> SchemaDiff {
        try target.validate()
        return try write { db, catalog in
            let diff = SchemaDiff.between(catalog.schema, target, protecting: protected)
            try diff.validate()
            if !diff.isEmpty { catalog = try SchemaStorage.apply(diff, to: catalog, db) }
            if let deployedBy {
                try db.execute(sql: "INSERT INTO deployments(deployed_at, deployed_by, changes) VALUES (?, ?, ?)",
                               arguments: [Clock.nowMillis(), deployedBy, diff.changes.map(\.description).joined(separator: "\n")])
            }
            return diff
        }
    }

    public func deployments() throws(StratusError) -> [Deployment] {
        try read { db, _ in
            try Row.fetchAll(db, sql: "SELECT id, deployed_at, deployed_by, changes FROM deployments ORDER BY id DESC").map {
                let text: String = $0[3]
                return Deployment(id: $0[0], deployedAt: $0[1], deployedBy: $0[2], changes: text.isEmpty ? [] : text.components(separatedBy: "\n"))
            }
        }
    }

    // MARK: zones

    private func zoneSyncToken(_ z: ZoneRow) -> String { SyncToken.zone(signer, zoneRowID: z.id, seq: z.changeSeq) }

    public func zones(in database: DatabaseID) throws(StratusError) -> [RecordZone] {
        try read { db, _ in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, name, atomic, change_seq FROM zones WHERE scope = ? AND owner = ? AND deleted = 0 ORDER BY name != '_defaultZone', name
                """, arguments: [database.scope.rawValue, database.ownerRecordName])
            var zones = rows.map { r -> RecordZone in
                let z = ZoneRow(id: r[0], zoneID: ZoneID(zoneName: r[1], ownerRecordName: database.ownerRecordName), atomic: r[2], changeSeq: r[3])
                return RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: z.atomic)
            }
            if !zones.contains(where: { $0.zoneID.isDefault }) {
                let z = ZoneRow(id: 0, zoneID: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: database.ownerRecordName), atomic: false, changeSeq: 0)
                zones.insert(RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: false), at: 0)
            }
            return zones
        }
    }

    public func lookupZone(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) -> RecordZone {
        guard let z = try zones(in: database).first(where: { $0.zoneID.zoneName == zoneID.zoneName }) else {
            throw StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
        }
        return z
    }

    /// Creates a custom zone (idempotent: an existing zone is returned as it is).
    @discardableResult
    public func createZone(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) -> RecordZone {
        try ZoneID.validate(zoneName: zoneID.zoneName)
        if zoneID.isDefault { return try lookupZone(zoneID, in: database) }
        guard database.scope.allowsCustomZones else {
            throw StratusError(.badRequest, "the public database has only the default zone", zoneID: zoneID)
        }
        return try write { db, _ in
            if let z = try ZoneRow.find(db, database, zoneID.zoneName) {
                return RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: z.atomic)
            }
            var seq = try SequenceAllocator(db)
            let s = seq.next()
            try db.execute(sql: "DELETE FROM zones WHERE scope = ? AND owner = ? AND name = ? AND deleted = 1",
                           arguments: [database.scope.rawValue, database.ownerRecordName, zoneID.zoneName])
            try db.execute(sql: "INSERT INTO zones(scope, owner, name, atomic, change_seq, created_at) VALUES (?, ?, ?, 1, ?, ?)",
                           arguments: [database.scope.rawValue, database.ownerRecordName, zoneID.zoneName, s, Clock.nowMillis()])
            try seq.save(db)
            let z = try ZoneRow.find(db, database, zoneID.zoneName)!
            return RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: true)
        }
    }

    /// Deletes a custom zone and every record in it; the deletion shows in the database's change feed.
    public func deleteZone(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) {
        guard !zoneID.isDefault else { throw StratusError(.badRequest, "the default zone cannot be deleted", zoneID: zoneID) }
        let released: [String] = try write { db, catalog in
            guard let zone = try ZoneRow.find(db, database, zoneID.zoneName) else {
                throw StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
            }
            var released: [String] = []
            for type in catalog.types {
                let fields = type.fields.filter { $0.type.scalar == .asset || $0.hasListTable || $0.hasFTS || $0.hasGeo }
                if !fields.isEmpty {
                    let rows = try Row.fetchAll(db, sql: "SELECT id, \(fields.map(\.column).joined(separator: ", ")) FROM \(type.table) WHERE zone_id = ?", arguments: [zone.id])
                    for row in rows {
                        let id: Int64 = row[0]
                        for (i, f) in fields.enumerated() {
                            if f.hasFTS { try db.execute(sql: "DELETE FROM \(f.ftsTable) WHERE rowid = ?", arguments: [id]) }
                            if f.hasGeo { try db.execute(sql: "DELETE FROM \(f.geoTable) WHERE id = ?", arguments: [id]) }
                            if f.hasListTable { try db.execute(sql: "DELETE FROM \(f.listTable) WHERE record_id = ?", arguments: [id]) }
                            if f.type.scalar == .asset, let v = try RecordRowCodec.decodeField(f, row[i + 1]) {
                                for c in v.assetChecksums { try AssetReferences.release(c, db); released.append(c) }
                            }
                        }
                    }
                }
                try db.execute(sql: "DELETE FROM cascade_refs WHERE source_type = ? AND source_id IN (SELECT id FROM \(type.table) WHERE zone_id = ?)", arguments: [type.id, zone.id])
                try db.execute(sql: "DELETE FROM \(type.table) WHERE zone_id = ?", arguments: [zone.id])
            }
            try db.execute(sql: "DELETE FROM cascade_refs WHERE target_zone = ?", arguments: [zone.id])
            try db.execute(sql: "DELETE FROM record_log WHERE zone_id = ?", arguments: [zone.id])
            var seq = try SequenceAllocator(db)
            try db.execute(sql: "UPDATE zones SET deleted = 1, change_seq = ? WHERE id = ?", arguments: [seq.next(), zone.id])
            try seq.save(db)
            return released
        }
        collectAssets(released)
    }

    // MARK: records

    /// Applies a modify batch. Whole-request problems throw; each operation's own failure is its result.
    /// In an atomic zone with `atomic`, one failure fails the batch: that operation keeps its error and the
    /// others get ATOMIC_ERROR, and nothing is written.
    public func modify(_ operations: [RecordOperation], in database: DatabaseID, zoneID: ZoneID = .defaultZone,
                       atomic: Bool = false, actor: Actor) throws(StratusError) -> [ModifyResult] {
        guard operations.count <= RecordOperation.maximumPerBatch else {
            throw .badRequest("a modify request holds at most \(RecordOperation.maximumPerBatch) operations; this one has \(operations.count)")
        }
        guard !operations.isEmpty else { return [] }
        if !zoneID.isDefault && !database.scope.allowsCustomZones {
            throw StratusError(.zoneNotFound, "the public database has only the default zone", zoneID: zoneID)
        }
        let (results, released): ([ModifyResult], Set<String>) = try write { db, catalog in
            var seq = try SequenceAllocator(db)
            let zone = try ZoneRow.resolve(db, database, zoneID, seq: &seq)
            try seq.save(db)
            var writer = try RecordWriter(db: db, catalog: catalog, environment: environment, database: database, actor: actor)
            var results: [ModifyResult] = []
            results.reserveCapacity(operations.count)
            if atomic && zone.atomic {
                var failure: (Int, StratusError)?
                let before = writer.catalog
                do {
                    try db.inSavepoint {
                        for (i, op) in operations.enumerated() {
                            do { results.append(try writer.apply(op, zone: zone)) } catch {
                                failure = (i, StratusError.from(error))
                                throw error
                            }
                        }
                        return .commit
                    }
                } catch {
                    writer.catalog = before
                    let (index, err) = failure ?? (0, StratusError.from(error))
                    results = operations.enumerated().map { i, op in
                        i == index ? .failed(err) : .failed(StratusError(.atomicError, "the atomic batch failed: operation \(index + 1) was refused (\(err.code.rawValue))", recordName: op.record.recordName))
                    }
                    return (results, [])
                }
            } else {
                for op in operations {
                    // A refused operation wrote nothing (the writer checks before it writes), so no savepoint is
                    // needed; a failure while writing aborts the whole transaction.
                    do {
                        results.append(try writer.apply(op, zone: zone))
                    } catch let failure as WriteFailure {
                        throw failure.underlying
                    } catch {
                        var e = StratusError.from(error)
                        if e.recordName == nil { e.recordName = op.record.recordName }
                        results.append(.failed(e))
                    }
                }
            }
            try writer.finish()
            catalog = writer.catalog
            return (results, writer.releasedAssets)
        }
        collectAssets(Array(released))
        return results
    }

    /// Fetches records by name, in the order asked; a missing one is NOT_FOUND in its place.
    public func lookup(_ recordNames: [String], in database: DatabaseID, zoneID: ZoneID = .defaultZone,
                       desiredKeys: [String]? = nil) throws(StratusError) -> [Result<StoredRecord, StratusError>] {
        guard recordNames.count <= Query.maximumResults else { throw .badRequest("a lookup asks for at most \(Query.maximumResults) records") }
        return try read { db, catalog in
            guard let zone = try ZoneRow.find(db, database, zoneID.zoneName) else {
                if zoneID.isDefault {
                    return recordNames.map { .failure(StratusError(.notFound, "record '\($0)' does not exist", recordName: $0)) }
                }
                throw StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
            }
            let found = try self.fetch(recordNames, zone: zone, catalog: catalog, desiredKeys: desiredKeys, db)
            return recordNames.map { name in
                if let r = found[name] { return .success(r) }
                return .failure(StratusError(.notFound, "record '\(name)' does not exist", recordName: name))
            }
        }
    }

    /// Loads records by name with one directory query and one query per record type (never one per record).
    func fetch(_ names: [String], zone: ZoneRow, catalog: Catalog, desiredKeys: [String]?, _ db: Database) throws -> [String: StoredRecord] {
        guard !names.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db, sql: """
            SELECT type_id, record_id FROM record_log WHERE zone_id = ? AND deleted = 0 AND record_name IN (\(Array(repeating: "?", count: names.count).joined(separator: ",")))
            """, arguments: StatementArguments([zone.id.databaseValue] + names.map(\.databaseValue)))
        var idsByType: [Int64: [Int64]] = [:]
        for r in rows { idsByType[r[0], default: []].append(r[1]) }
        return try loadRecords(idsByType, catalog: catalog, desiredKeys: desiredKeys, zones: { _ in zone.zoneID }, db)
            .reduce(into: [:]) { $0[$1.value.recordName] = $1.value }
    }

    /// Loads records by internal id, grouped by type; the result is keyed by "typeID/recordID".
    func loadRecords(_ idsByType: [Int64: [Int64]], catalog: Catalog, desiredKeys: [String]?, zones: (Int64) -> ZoneID,
                     _ db: Database) throws -> [String: StoredRecord] {
        var out: [String: StoredRecord] = [:]
        for (typeID, ids) in idsByType {
            guard let type = catalog.type(id: typeID) else { continue }
            let fields = RecordRowCodec.wantedFields(type, desiredKeys)
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                let sql = "SELECT \(RecordRowCodec.selectList(type, fields: fields)) FROM \(type.table) t WHERE t.id IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
                let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(chunk))
                while let row = try cursor.next() {
                    let (id, record) = try RecordRowCodec.decode(row, type: type, fields: fields, zones: zones)
                    out["\(typeID)/\(id)"] = record
                }
            }
        }
        return out
    }

    // MARK: queries

    public func query(_ query: Query, in database: DatabaseID) throws(StratusError) -> QueryResult {
        guard query.resultsLimit >= 0 else { throw .badRequest("resultsLimit must not be negative") }
        let marker = try query.continuationMarker.map { (m: String) throws(StratusError) in
            try ContinuationMarker.read(signer, m, fingerprint: ContinuationMarker.fingerprint(query, database: database))
        }
        return try read { db, catalog in
            guard let type = catalog.type(named: query.recordType) else {
                throw StratusError.badRequest("record type '\(query.recordType.prefix(100))' does not exist in the \(environment.rawValue) schema")
            }
            var zoneNames: [Int64: ZoneID] = [:]
            let zoneCondition: String
            let zoneArgs: [DatabaseValue]
            if let zoneID = query.zoneID {
                guard let zone = try ZoneRow.find(db, database, zoneID.zoneName) else {
                    if zoneID.isDefault {
                        // Nothing written yet; the query must still be one that would be accepted.
                        var compiler = QueryCompiler(type: type, environment: environment, desiredKeys: query.desiredKeys)
                        _ = try compiler.compile(query, zoneCondition: "0", zoneArguments: [], after: marker)
                        return QueryResult(records: [], continuationMarker: nil)
                    }
                    throw StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
                }
                zoneNames[zone.id] = zone.zoneID
                zoneCondition = "t.zone_id = ?"
                zoneArgs = [zone.id.databaseValue]
            } else {
                for r in try Row.fetchAll(db, sql: "SELECT id, name FROM zones WHERE scope = ? AND owner = ? AND deleted = 0",
                                          arguments: [database.scope.rawValue, database.ownerRecordName]) {
                    zoneNames[r[0]] = ZoneID(zoneName: r[1], ownerRecordName: database.ownerRecordName)
                }
                zoneCondition = "t.zone_id IN (\(zoneNames.keys.map(String.init).joined(separator: ",").nonEmpty ?? "NULL"))"
                zoneArgs = []
            }
            var compiler = QueryCompiler(type: type, environment: environment, desiredKeys: query.desiredKeys)
            let compiled = try compiler.compile(query, zoneCondition: zoneCondition, zoneArguments: zoneArgs, after: marker)
            let limit = max(1, min(query.resultsLimit == 0 ? Query.maximumResults : query.resultsLimit, Query.maximumResults))
            var records: [StoredRecord] = []
            records.reserveCapacity(limit)
            let zoneLookup: (Int64) -> ZoneID = { zoneNames[$0] ?? .defaultZone }
            let base = CatalogType.systemColumns.count + compiled.fieldCount
            var lastKeys: [DatabaseValue] = []
            var more = false
            // Decode while stepping: rows are read from the statement once, never copied into an array first.
            let cursor = try Row.fetchCursor(db.cachedStatement(sql: compiled.sql), arguments: StatementArguments(compiled.arguments))
            while let row = try cursor.next() {
                if records.count == limit { more = true; break }
                records.append(try RecordRowCodec.decode(row, type: type, fields: compiler.fields, zones: zoneLookup).record)
                if records.count == limit { lastKeys = (0..<compiled.sortKeyCount).map { row[base + $0] } }
            }
            var next: String? = nil
            if more { next = ContinuationMarker.make(signer, fingerprint: ContinuationMarker.fingerprint(query, database: database), values: lastKeys) }
            return QueryResult(records: records, continuationMarker: next)
        }
    }

    // MARK: changes

    /// Records changed and deleted in a zone since `syncToken` (nil: from the start), oldest first.
    public func zoneChanges(in database: DatabaseID, zoneID: ZoneID, since syncToken: String?, resultsLimit: Int = Query.maximumResults,
                            desiredKeys: [String]? = nil) throws(StratusError) -> ZoneChanges {
        let limit = max(1, min(resultsLimit <= 0 ? Query.maximumResults : resultsLimit, Query.maximumResults))
        return try read { db, catalog in
            guard let zone = try ZoneRow.find(db, database, zoneID.zoneName) else {
                if zoneID.isDefault {
                    if let t = syncToken { _ = try SyncToken.readZone(signer, t, zoneRowID: 0) }
                    return ZoneChanges(zoneID: zoneID, changed: [], deleted: [], syncToken: SyncToken.zone(signer, zoneRowID: 0, seq: 0), moreComing: false)
                }
                throw StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
            }
            var since: Int64 = 0
            if let t = syncToken {
                // A token taken before the default zone's first write carries zone 0.
                do { since = try SyncToken.readZone(signer, t, zoneRowID: zone.id) } catch {
                    guard zone.zoneID.isDefault, (try? SyncToken.readZone(signer, t, zoneRowID: 0)) != nil else { throw error }
                }
            }
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT seq, record_name, type_id, record_id, deleted FROM record_log WHERE zone_id = ? AND seq > ? ORDER BY seq LIMIT ?
                """), arguments: [zone.id, since, limit + 1])
            let page = rows.prefix(limit)
            var idsByType: [Int64: [Int64]] = [:]
            for r in page where !(r[4] as Bool) { idsByType[r[2], default: []].append(r[3]) }
            let loaded = try loadRecords(idsByType, catalog: catalog, desiredKeys: desiredKeys, zones: { _ in zone.zoneID }, db)
            var changed: [StoredRecord] = []
            var deleted: [String] = []
            for r in page {
                if r[4] as Bool { deleted.append(r[1]) } else if let rec = loaded["\(r[2] as Int64)/\(r[3] as Int64)"] { changed.append(rec) }
            }
            let more = rows.count > limit
            let lastSeq: Int64 = more ? page.last![0] : max(since, zone.changeSeq, page.last.map { $0[0] } ?? 0)
            return ZoneChanges(zoneID: zone.zoneID, changed: changed, deleted: deleted,
                               syncToken: SyncToken.zone(signer, zoneRowID: zone.id, seq: lastSeq), moreComing: more)
        }
    }

    /// Zones created, changed or deleted in a database since `syncToken`.
    public func databaseChanges(in database: DatabaseID, since syncToken: String?, resultsLimit: Int = Query.maximumResults) throws(StratusError) -> DatabaseChanges {
        let limit = max(1, min(resultsLimit <= 0 ? Query.maximumResults : resultsLimit, Query.maximumResults))
        let since = try syncToken.map { (t: String) throws(StratusError) in try SyncToken.readDatabase(signer, t, database) } ?? 0
        return try read { db, _ in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, name, atomic, change_seq, deleted FROM zones WHERE scope = ? AND owner = ? AND change_seq > ? ORDER BY change_seq LIMIT ?
                """, arguments: [database.scope.rawValue, database.ownerRecordName, since, limit + 1])
            let page = rows.prefix(limit)
            var changed: [RecordZone] = []
            var deleted: [ZoneID] = []
            for r in page {
                let z = ZoneRow(id: r[0], zoneID: ZoneID(zoneName: r[1], ownerRecordName: database.ownerRecordName), atomic: r[2], changeSeq: r[3])
                if r[4] as Bool { deleted.append(z.zoneID) } else { changed.append(RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: z.atomic)) }
            }
            let more = rows.count > limit
            let last: Int64 = page.last.map { $0[3] } ?? since
            let token = more ? last : max(last, try ChangeSequence.current(db))
            return DatabaseChanges(changedZones: changed, deletedZones: deleted, syncToken: SyncToken.database(signer, database, seq: token), moreComing: more)
        }
    }

    // MARK: assets

    /// Stores asset content and returns the value a record's ASSET field takes.
    public func uploadAsset(_ data: Data) throws(StratusError) -> AssetValue {
        guard data.count <= AssetStore.maximumSize else {
            throw StratusError(.quotaExceeded, "an asset holds at most \(AssetStore.maximumSize / 1024 / 1024) MB")
        }
        let (base64, _) = AssetStore.checksum(of: data)
        let staged = try guarded { try assets.stage(data) }
        defer { try? FileManager.default.removeItem(at: staged.temp) }
        // The rename happens inside the write transaction so it cannot interleave with a collection of the same content.
        try write { db, _ in
            try self.assets.commit(temp: staged.temp, final: staged.final)
            try db.execute(sql: """
                INSERT INTO assets(checksum, size, refs, created_at) VALUES (?, ?, 0, ?)
                ON CONFLICT(checksum) DO UPDATE SET created_at = excluded.created_at
                """, arguments: [base64, data.count, Clock.nowMillis()])
        }
        return AssetValue(fileChecksum: base64, size: Int64(data.count), referenceChecksum: base64, receipt: base64)
    }

    public func assetContent(checksum: String) -> Data? { assets.contents(checksum: checksum) }

    /// Removes the content of assets no record refers to any more. `olderThan` spares fresh uploads
    /// that are about to be referenced.
    @discardableResult
    public func collectUnreferencedAssets(olderThan millis: Int64 = Clock.nowMillis()) throws(StratusError) -> Int {
        let gone: [String] = try write { db, _ in
            let gone = try String.fetchAll(db, sql: "DELETE FROM assets WHERE refs = 0 AND created_at <= ? RETURNING checksum", arguments: [millis])
            for c in gone { self.assets.remove(checksum: c) }
            return gone
        }
        return gone.count
    }

    private func collectAssets(_ released: [String]) {
        guard !released.isEmpty else { return }
        let cutoff = Clock.nowMillis()
        _ = try? write { db, _ in
            for c in Set(released) {
                if try String.fetchOne(db, sql: "DELETE FROM assets WHERE checksum = ? AND refs = 0 AND created_at <= ? RETURNING checksum", arguments: [c, cutoff]) != nil {
                    self.assets.remove(checksum: c)
                }
            }
        }
    }

    // MARK: reset

    /// Deletes every record, zone and asset, and sets the schema to `schema` (Production's, or empty).
    func reset(to schema: Schema) throws(StratusError) {
        try write { db, catalog in
            for type in catalog.types {
                for f in type.fields { try SchemaStorage.dropStructures(f, except: nil, table: type.table, db) }
                try db.execute(sql: "DROP TABLE \(type.table)")
            }
            try db.execute(sql: """
                DELETE FROM record_types; DELETE FROM fields; DELETE FROM roles; DELETE FROM record_log; DELETE FROM cascade_refs;
                DELETE FROM assets; UPDATE zones SET deleted = 1;
                """)
            var seq = try SequenceAllocator(db)
            try db.execute(sql: "UPDATE zones SET change_seq = ?", arguments: [seq.next()])
            try seq.save(db)
            catalog = Catalog(generation: try SchemaStorage.bumpGeneration(db), roles: [], types: [])
            let diff = SchemaDiff.between(catalog.schema, schema)
            catalog = try SchemaStorage.apply(diff, to: catalog, db)
        }
        try? FileManager.default.removeItem(at: assets.root)
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

extension EnvironmentStore {
    /// SQLite's own consistency check of this environment's file: "ok" when intact.
    public func integrityCheck() throws(StratusError) -> String {
        try guarded { try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n") } }
    }
}
