import Foundation
import StratusModel
import Synchronization

/// Records: modify batches and lookups.
public final class StoredRecords: EnvironmentPart {
    let core: EnvironmentDatabase
    let quota: QuotaStore
    let assets: AssetStore
    let subscriptions: SubscriptionStore
    let notifications: NotificationStore
    let queryShapes: QueryShapeStore
    /// Record types this process is bulk loading (see `deferIndexes`).
    let deferredTypes = Mutex<Set<Int64>>([])
    /// The record type lookups guess (see `LookupGuess`).
    let lookupGuess = LookupGuess()

    init(core: EnvironmentDatabase, quota: QuotaStore, assets: AssetStore, subscriptions: SubscriptionStore, notifications: NotificationStore, queryShapes: QueryShapeStore) {
        self.core = core
        self.quota = quota
        self.assets = assets
        self.subscriptions = subscriptions
        self.notifications = notifications
        self.queryShapes = queryShapes
    }

    /// Applies a modify batch. Whole-request problems throw; each operation's own failure is its result.
    /// With `requireAssetReceipts` (every write from a client), a new asset reference needs the receipt that the
    /// actor's own upload returned.
    /// In an atomic zone with `atomic`, one failure fails the batch: that operation keeps its error and the
    /// others get ATOMIC_ERROR, and nothing is written.
    public func modify(_ operations: [RecordOperation], in database: DatabaseID, zoneID: ZoneID = .defaultZone,
                       atomic: Bool = false, allOrNothing: Bool = false, actor: RequestActor, caller: Caller? = nil, requireAssetReceipts: Bool = false,
                       users: (@Sendable (ShareRequest.Lookup) -> ContainerUser?)? = nil) throws(StratusError) -> [ModifyResult] {
        if let refused = try Self.refusal(of: operations, allOrNothing: allOrNothing) { return refused }
        guard !operations.isEmpty else { return [] }
        // The batch's records are promised against the quota before anything is written, so batches at once cannot
        // pass it together (their rows' and indexes' overhead shows at the next measure, a second later at most).
        let estimate = operations.reduce(Int64(0)) { $0 + ($1.operationType.isDelete ? 0 : Int64($1.record.storageSize) + UserUsage.recordOverhead) }
        let promised = operations.contains(where: { !$0.operationType.isDelete }) ? try quota.reserve(max(estimate, 1)) : 0
        var wrote: Int64 = 0
        defer { quota.settle(promised, wroteRecords: wrote) }
        try Self.checkWritable(zoneID, in: database)
        let target = try targetDatabase(zoneID, in: database)
        let names = operations.map { $0.record.recordName }.filter { !$0.isEmpty }
        // Outside the shared database, the zone and the batch's entries come with the schema's generation.
        let readsAhead = database.scope != .shared && names.count <= ZonePrefetch.maximumNames
        let first = { (db: any SQLSession) throws -> (generation: Int64, ZonePrefetch?) in
            guard readsAhead else { return (try SchemaStorage.generation(db), nil) }
            let (generation, read) = try ZonePrefetch.read(db, database, zoneName: zoneID.zoneName, names: names)
            return (generation, read)
        }
        let (results, released): ([ModifyResult], Set<String>) = try core.write(in: target, for: actor.userRecordName, first: first) { db, catalog, seq, prefetched in
            let (zone, access) = try prefetched?.zone.map { ($0, nil) } ?? Self.zone(zoneID, in: database, db, &seq)
            guard zone.database == target else {
                throw StratusError(.tryAgainLater, "zone '\(zoneID.zoneName.prefix(100))' changed hands while this request waited: try again", retryAfter: 1)
            }
            var writer = try RecordWriter(db: db, catalog: catalog, environment: environment, database: target, seq: seq, actor: actor,
                                          caller: caller, receipts: requireAssetReceipts ? signer : nil)
            writer.access = access
            writer.users = users
            // A client's write (it has a caller) is held to its user's cap; the console's and the CLI's are only counted.
            writer.userQuota = caller == nil ? nil : core.userQuotaBytes
            writer.handOff = try notifications.handOff(db)
            writer.deferredTypes = deferredTypes.withLock { $0 }
            if let prefetched, prefetched.zone != nil { writer.know(prefetched, zone: zone) } else { try writer.prefetch(names, zone: zone) }
            // `allOrNothing` (bulk import): the batch is atomic in any zone, the default zone's included.
            var results: [ModifyResult] = []
            results.reserveCapacity(operations.count)
            if (atomic && zone.atomic) || allOrNothing {
                if let refused = try Self.applyAtomically(operations, zone: zone, &writer, into: &results, db) { return (refused, []) }
            } else {
                try Self.applyEach(operations, zone: zone, &writer, into: &results)
            }
            try writer.finish()
            seq = writer.seq
            try writer.handOff?.finish(db)
            catalog = writer.catalog
            return (results, writer.releasedAssets)
        }
        wrote = promised
        assets.collectAssets(Array(released))
        core.noteWrites(operations.count)
        notifications.tendLog()
        return results
    }

    /// What a batch is answered without writing: too many operations throws; one record named twice (a save and a
    /// delete, two saves) is refused as CloudKit refuses it — the repeated operations say why and the others that
    /// the batch failed.
    private static func refusal(of operations: [RecordOperation], allOrNothing: Bool) throws(StratusError) -> [ModifyResult]? {
        let limit = allOrNothing ? RecordOperation.maximumPerImportBatch : RecordOperation.maximumPerBatch
        guard operations.count <= limit else {
            throw StratusError(.limitExceeded, "a modify request holds at most \(limit) operations; this one has \(operations.count)")
        }
        var seen: [String: Int] = [:]
        for op in operations where !op.record.recordName.isEmpty { seen[op.record.recordName, default: 0] += 1 }
        guard let twice = seen.first(where: { $0.value > 1 })?.key else { return nil }
        return operations.map { op in
            seen[op.record.recordName, default: 0] > 1
                ? .failed(StratusError(.badRequest, "record '\(op.record.recordName)' appears more than once in this batch: save or delete each record once per request",
                                       recordName: op.record.recordName))
                : .failed(StratusError(.atomicError, "the batch was refused: record '\(twice)' appears more than once in it", recordName: op.record.recordName))
        }
    }

    /// Refuses a zone the database cannot write to: the public database has only its default zone, and the shared
    /// database none (records there live in zones their owners share).
    private static func checkWritable(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) {
        if !zoneID.isDefault && !database.scope.allowsCustomZones {
            throw StratusError(.zoneNotFound, "the public database has only the default zone", zoneID: zoneID)
        }
        if database.scope == .shared && zoneID.isDefault {
            throw StratusError(.badRequest, "the shared database has no default zone: write to a zone shared with you", zoneID: zoneID)
        }
    }

    /// The zone a write goes to (made when it is a private database's first use of it); in the shared database, the
    /// owner's zone, written as the owner's private database within what the participant's shares allow.
    private static func zone(_ zoneID: ZoneID, in database: DatabaseID, _ db: any SQLSession, _ seq: inout SequenceAllocator) throws -> (ZoneRow, SharedZoneAccess?) {
        if database.scope == .shared { return try SharedZones.zone(db, user: database.ownerRecordName, zoneID: zoneID) }
        return (try ZoneRow.resolve(db, database, zoneID, seq: &seq), nil)
    }

    /// The database whose change counter a write to `zoneID` takes: the database itself, or in the shared database
    /// the zone owner's private database (read here, before the write; the write checks it still holds).
    private func targetDatabase(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) -> DatabaseID {
        guard database.scope == .shared else { return database }
        return try read { db, _ in try SharedZones.zone(db, user: database.ownerRecordName, zoneID: zoneID).0.database }
    }

    /// Applies every operation or none: the first refusal rolls the batch back, keeps its error and gives the others
    /// ATOMIC_ERROR (returned); nil when all were applied, their results in `results`.
    private static func applyAtomically(_ operations: [RecordOperation], zone: ZoneRow, _ writer: inout RecordWriter,
                                        into results: inout [ModifyResult], _ db: any SQLSession) throws -> [ModifyResult]? {
        var failure: (Int, StratusError)?
        let before = writer.catalog
        do {
            try db.savepoint {
                for (i, op) in operations.enumerated() {
                    do { results.append(try writer.apply(op, zone: zone)) } catch {
                        failure = (i, StratusError.from(error))
                        throw error
                    }
                }
            }
            return nil
        } catch {
            // Not a refusal: the whole write runs again, alone (see `NeedsExclusiveWrite`).
            if let f = error as? WriteFailure, f.underlying is NeedsExclusiveWrite { throw f.underlying }
            if error is NeedsExclusiveWrite { throw error }
            writer.catalog = before
            let (index, err) = failure ?? (0, StratusError.from(error))
            return operations.enumerated().map { i, op in
                i == index ? .failed(err) : .failed(StratusError(.atomicError, "the atomic batch failed: operation \(index + 1) was refused (\(err.code.rawValue))", recordName: op.record.recordName))
            }
        }
    }

    /// Applies each operation on its own: a refused one wrote nothing (the writer checks before it writes), so it
    /// needs no savepoint and is its result; a failure while writing aborts the whole transaction.
    private static func applyEach(_ operations: [RecordOperation], zone: ZoneRow, _ writer: inout RecordWriter,
                                  into results: inout [ModifyResult]) throws {
        for op in operations {
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

    /// Fetches records by name, in the order asked; a missing one is NOT_FOUND in its place.
    public func lookup(_ recordNames: [String], in database: DatabaseID, zoneID: ZoneID = .defaultZone,
                       desiredKeys: [String]? = nil, caller: Caller? = nil) throws(StratusError) -> [Result<StoredRecord, StratusError>] {
        try RequestLimits.check(recordNames.count, "records")
        if database.scope != .shared, !recordNames.isEmpty, desiredKeys == nil,
           let answered = try lookupInOneStatement(recordNames, in: database, zoneID: zoneID, caller: caller) {
            return answered
        }
        return try readCheckingCatalog { db, catalogOf in
            let read: LookupRead
            if database.scope != .shared, !recordNames.isEmpty {
                guard let direct = try readDirectory(recordNames, in: database, zoneID: zoneID, desiredKeys: desiredKeys, db, catalogOf) else {
                    return Self.allMissing(recordNames)
                }
                read = direct
            } else {
                let catalog = try catalogOf(try SchemaStorage.generation(db))
                let (row, shared) = try SharedZones.resolve(db, database, zoneID)
                guard let row else { return Self.allMissing(recordNames) }
                read = (row, shared, catalog, try self.fetch(recordNames, zone: row, catalog: catalog, desiredKeys: desiredKeys, db))
            }
            return try answers(recordNames, read, in: database, caller: caller, db)
        }
    }

    /// What a lookup read: the zone, a participant's access to it, the catalog read with, the records by name.
    private typealias LookupRead = (zone: ZoneRow, access: SharedZoneAccess?, catalog: Catalog, found: [String: StoredRecord])

    private static func allMissing(_ names: [String]) -> [Result<StoredRecord, StratusError>] {
        names.map { .failure(StratusError(.notFound, "record '\($0)' does not exist", recordName: $0)) }
    }

    /// A lookup in a public or private database: the schema's generation, the zone, its directory entries for the
    /// names and whether it has links, in one statement (on PostgreSQL each statement is a round trip, and a
    /// one-record lookup made five), with the rows of the type that lookups found last (see `LookupGuess`).
    /// Nil when the default zone has not been written to yet.
    private func readDirectory(_ names: [String], in database: DatabaseID, zoneID: ZoneID, desiredKeys: [String]?, _ db: any SQLSession,
                               _ catalogOf: (Int64) throws -> Catalog) throws -> LookupRead? {
        let guess = desiredKeys == nil ? lookupGuess.guess(core.cachedCatalog.read { $0 }) : nil
        var guessed: [String: StoredRecord] = [:]
        var dir: DirectoryRead?
        do {
            (dir, guessed) = try directory(names, in: database, zoneID: zoneID, guess: guess, db)
        } catch where guess != nil {
            // Made from a catalog older than the database's (a type or column gone): asked again without the guess.
            guessed = [:]
            dir = try RecordLog.directory(names, zoneName: zoneID.zoneName, in: database, guess: nil, db) { _, _ in }
        }
        guard let (row, idsByType, hasLinks, generation) = dir else {
            if zoneID.isDefault { return nil }
            throw StratusError.from(try ZoneRow.missing(db, database, zoneID))
        }
        let catalog = try catalogOf(generation)
        var found = guessed
        if !idsByType.isEmpty {
            for record in try loadRecords(idsByType, catalog: catalog, desiredKeys: desiredKeys, zones: { _ in row.zoneID }, db).values {
                found[record.recordName] = record
            }
            if let typeID = idsByType.keys.first { lookupGuess.found(typeID) }
        }
        if hasLinks { try addLinks(&found, zone: row, knownToHaveLinks: true, db) }
        return (row, nil, catalog, found)
    }

    /// What the directory's statement says of a zone: its row, the ids of the names it did not read whole (by
    /// type), whether it has links, and the schema's generation.
    private typealias DirectoryRead = (zone: ZoneRow, idsByType: [Int64: [Int64]], hasLinks: Bool, generation: Int64)

    /// The directory's statement for `names`, with the records of the guessed type read whole by name.
    private func directory(_ names: [String], in database: DatabaseID, zoneID: ZoneID, guess: LookupGuess.Guess?,
                           _ db: any SQLSession) throws -> (DirectoryRead?, [String: StoredRecord]) {
        var guessed: [String: StoredRecord] = [:]
        let dir = try RecordLog.directory(names, zoneName: zoneID.zoneName, in: database, guess: guess, db) { r, zoneID in
            var sink = StoredRecordSink()
            try guess!.streamer.stream(r, from: RecordLog.directoryColumns, zoneID: zoneID, into: &sink)
            let record = sink.takeLast()
            guessed[record.recordName] = record
        }
        return (dir, guessed)
    }

    /// The usual lookup, of records of the type lookups found last in a zone without links, answered by the
    /// directory's one statement with no transaction around it: SQLite's autocommit gives one statement one
    /// snapshot, and a read transaction's BEGIN and COMMIT were two statements more. Nil when the answer needs more
    /// than that statement (another type, links, a catalog not cached, a stale guess, a user record): the lookup is
    /// then read again whole, in a transaction.
    private func lookupInOneStatement(_ names: [String], in database: DatabaseID, zoneID: ZoneID,
                                      caller: Caller?) throws(StratusError) -> [Result<StoredRecord, StratusError>]? {
        guard let guess = lookupGuess.guess(core.cachedCatalog.read { $0 }) else { return nil }
        return try readStatementCheckingCatalog { db, cachedCatalog -> [Result<StoredRecord, StratusError>]? in
            guard let (dir, guessed) = try? directory(names, in: database, zoneID: zoneID, guess: guess, db),
                  let dir, dir.idsByType.isEmpty, !dir.hasLinks, let catalog = cachedCatalog(dir.generation),
                  !guessed.values.contains(where: { $0.recordType == UserRecord.recordType }) else { return nil }
            return try answers(names, (dir.zone, nil, catalog, guessed), in: database, caller: caller, db)
        }
    }

    /// The usual lookup streamed to `sink` as its rows are read, in the order asked, with no record built: true when
    /// the directory's one statement found every name, of the guessed type, readable by `caller`, in that order, in
    /// a zone without links. False when anything else is to be answered (a name missing, another type or order,
    /// links, a record the caller may not read, a user record): what `sink` got is then to be thrown away and the
    /// names asked with `lookup`, which answers every case.
    public func lookup(_ names: [String], in database: DatabaseID, zoneID: ZoneID = .defaultZone, caller: Caller? = nil,
                       streamingInto sink: inout some RecordSink) throws(StratusError) -> Bool {
        try RequestLimits.check(names.count, "records")
        guard database.scope != .shared, !names.isEmpty, let guess = lookupGuess.guess(core.cachedCatalog.read { $0 }),
              guess.type.name != UserRecord.recordType else { return false }
        let filter = database.scope == .public ? caller : nil
        let first = RecordLog.directoryColumns
        return try readStatementCheckingCatalog { db, cachedCatalog -> Bool in
            var next = 0
            var answered = true
            guard let dir = try? RecordLog.directory(names, zoneName: zoneID.zoneName, in: database, guess: guess, db, guessed: { r, zone in
                guard answered, next < names.count, r.string(first + RecordColumn.recordName.position) == names[next],
                      filter == nil || SecurityPolicy.allows(.read, grants: guess.type.grants, caller: filter!,
                                                             creator: r.string(first + RecordColumn.createdBy.position)) else {
                    answered = false
                    return
                }
                next += 1
                try guess.streamer.stream(r, from: first, zoneID: zone, into: &sink)
            }) else { return false }
            return answered && next == names.count && dir.1.isEmpty && !dir.2 && cachedCatalog(dir.3) != nil
        }
    }

    /// Each name's answer, in the order asked: the record, NOT_FOUND, or a public record the caller may not read.
    /// A participant of hierarchy shares sees only the records those shares cover.
    private func answers(_ names: [String], _ read: LookupRead, in database: DatabaseID, caller: Caller?,
                         _ db: any SQLSession) throws -> [Result<StoredRecord, StratusError>] {
        var found = read.found
        if let access = read.access, access.zonePermission == nil {
            let visible = try RecordLinks.covered(db, zone: read.zone.id, shares: Array(access.shares.keys), names: Array(found.keys))
            found = found.filter { visible.contains($0.key) }
        }
        var results: [Result<StoredRecord, StratusError>] = []
        results.reserveCapacity(names.count)
        for name in names {
            guard let r = found[name] else {
                results.append(.failure(StratusError(.notFound, "record '\(name)' does not exist", recordName: name)))
                continue
            }
            if let caller, database.scope == .public, !Self.canRead(r, caller: caller, catalog: read.catalog) {
                results.append(.failure(SecurityPolicy.denial(.read, recordType: r.recordType, recordName: name)))
                continue
            }
            results.append(.success(r.recordType == UserRecord.recordType ? try withRoles(r, catalog: read.catalog, db) : r))
        }
        return results
    }

    /// Loads records by name with one directory query and one query per record type (never one per record).
    /// SQLite is told the directory's name index: for several names its planner scanned the zone's whole log.
    func fetch(_ names: [String], zone: ZoneRow, catalog: Catalog, desiredKeys: [String]?, _ db: any SQLSession) throws -> [String: StoredRecord] {
        guard !names.isEmpty else { return [:] }
        var idsByType: [Int64: [Int64]] = [:]
        try RecordLog.eachLive(db, zone: zone.id, names: names) { _, entry in idsByType[entry.typeID, default: []].append(entry.recordID) }
        var out = try loadRecords(idsByType, catalog: catalog, desiredKeys: desiredKeys, zones: { _ in zone.zoneID }, db)
            .reduce(into: [:]) { $0[$1.value.recordName] = $1.value }
        try addLinks(&out, zone: zone, db)
        return out
    }

    /// Fills in the `parent` and `share` system fields of records of one zone (nothing to do in most zones).
    func addLinks(_ records: inout [String: StoredRecord], zone: ZoneRow, knownToHaveLinks: Bool = false, _ db: any SQLSession) throws {
        guard !records.isEmpty else { return }
        if !knownToHaveLinks { guard try RecordLinks.zoneHasLinks(db, zone: zone.id) else { return } }
        for name in Array(records.keys) {
            guard let link = try RecordLinks.link(db, zone: zone.id, name: name) else { continue }
            records[name]?.parent = link.parent
            if link.shareID != nil { records[name]?.share = try ShareRows.find(db, zone: zone, root: name)?.share.recordName }
        }
    }

    /// Loads records by internal id, grouped by type; the result is keyed by "typeID/recordID".
    func loadRecords(_ idsByType: [Int64: [Int64]], catalog: Catalog, desiredKeys: [String]?, zones: (Int64) -> ZoneID,
                     _ db: any SQLSession) throws -> [String: StoredRecord] {
        var out: [String: StoredRecord] = [:]
        for (typeID, ids) in idsByType {
            guard let type = catalog.type(id: typeID) else { continue }
            let fields = RecordRowCodec.wantedFields(type, desiredKeys)
            let streamer = RowStreamer(type: type, fields: fields)
            var sink = StoredRecordSink()
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                try db.eachOfPage(TypeStatements.select(type, fields: fields, ids: chunk.count), chunk.map { .int64($0) }) { row in
                    let id = row.int64(RecordColumn.id.position) ?? 0
                    try streamer.stream(row, zoneID: zones(row.int64(RecordColumn.zoneID.position) ?? 0), into: &sink)
                    out["\(typeID)/\(id)"] = sink.takeLast()
                }
            }
        }
        return out
    }

    /// READ on the public database, judged against the record's creator.
    static func canRead(_ r: StoredRecord, caller: Caller, catalog: Catalog) -> Bool {
        let grants = catalog.type(named: r.recordType)?.grants ?? SecurityRole.defaultGrants
        return SecurityPolicy.allows(.read, grants: grants, caller: caller, creator: r.created?.userRecordName)
    }
}
