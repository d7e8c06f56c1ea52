import Foundation
import StratusModel

/// Applies record operations inside one write transaction, keeping every invariant in step:
/// the type's table, list/full-text/geo index tables, the record directory and change log,
/// DELETE_SELF back-references and asset reference counts.
struct RecordWriter {
    /// The write transaction, on either backend.
    let db: any SQLSession
    var catalog: Catalog {
        // Statements built for an older catalog may name columns that no longer exist (or not yet).
        didSet { statements = [:] }
    }
    private(set) var catalogChanged = false
    let environment: ContainerEnvironment
    let database: DatabaseID
    var seq: SequenceAllocator
    let actor: RequestActor
    /// Whose permissions apply; nil for the server's own work (console admins, the CLI).
    let caller: Caller?
    /// When set, a new asset reference must carry a receipt of the actor's own upload, checked with this signer.
    let receipts: TokenSigner?
    /// Appends the notifications each change fires, in this transaction; nil when the environment has no subscriptions.
    var handOff: NotificationHandOff?
    /// Set when a participant writes through their shared database: what their shares let them do in this zone.
    var access: SharedZoneAccess?
    /// Finds the container's users that share records name as participants (the control database keeps users).
    var users: (@Sendable (ShareRequest.Lookup) -> ContainerUser?)?
    let now: Int64
    /// Assets whose last reference went away: their files go once the transaction commits.
    private(set) var releasedAssets: Set<String> = []
    /// zone row id → the last sequence written there, to move zone change tokens once per batch.
    private(set) var touchedZones: [Int64: Int64] = [:]
    /// (zone row id, type id) → records added minus records deleted in this batch, for `record_counts`.
    private var countChanges: [CountKey: Int64] = [:]
    /// Per type id; emptied whenever the catalog changes.
    private var statements: [Int64: TypeStatements] = [:]

    /// What the batch charges each user, written by `finish`.
    private var usage = UsageLedger()
    /// The most one user's data may take (see `UserUsage`); nil: charged, never refused (the server's own writes).
    var userQuota: Int64? {
        get { usage.limit }
        set { usage.limit = newValue }
    }

    /// Types under a bulk load (`EnvironmentStore.deferIndexes`): their full-text, location and list entries are
    /// written by the rebuild at the end of the load, not record by record.
    var deferredTypes: Set<Int64> = []

    /// `seq`: the database's allocator when the transaction made it already (`EnvironmentDatabase.write(in:)`);
    /// otherwise the writer locks the database's counter itself.
    init(db: any SQLSession, catalog: Catalog, environment: ContainerEnvironment, database: DatabaseID, seq: SequenceAllocator? = nil, actor: RequestActor,
         caller: Caller? = nil, receipts: TokenSigner? = nil) throws {
        self.receipts = receipts
        self.db = db
        self.catalog = catalog
        self.environment = environment
        self.database = database
        self.seq = try seq ?? SequenceAllocator(db, database)
        self.actor = actor
        self.caller = database.scope == .public ? caller : nil
        self.now = WallClock.nowMillis()
    }

    // MARK: directory

    typealias Existing = RecordLog.Entry

    // MARK: round trips

    /// The directory entries of a batch's record names, read before it starts (`prefetch`) and kept in step by
    /// `log` (every directory write goes through it); nil for a batch of one record.
    private var known: (zone: Int64, entries: [String: Existing?])?
    /// Record ids handed out ahead per type id, in one round trip for a batch's worth (PostgreSQL).
    private var reservedIDs: [Int64: [Int64]] = [:]
    /// How many records the batch may still create: how many ids to reserve at once.
    private var createsAhead = 1

    /// Rows of inserts that only this batch reads (PostgreSQL's writes gather them; SQLite's run each insert as it
    /// comes, a statement costing it nothing to send), written before anything reads those tables again.
    private var gathered = GatheredInserts()

    private mutating func insertLater(_ head: String, _ tuple: String, tail: String = "", _ arguments: [SQLValue]) {
        gathered.add(head, tuple, tail: tail, arguments)
    }

    /// Writes the gathered rows.
    mutating func flushInserts() throws { try gathered.send(db) }

    /// Reads the directory entries of a batch's names at once, a thousand names per statement: on PostgreSQL
    /// each lookup would be a round trip, and on SQLite a statement per record costs more than the index probe.
    mutating func prefetch(_ names: [String], zone: ZoneRow) throws {
        createsAhead = max(1, names.count)
        guard names.count > 1 else { return }
        var entries: [String: Existing?] = Dictionary(minimumCapacity: names.count)
        for n in names { entries[n] = .some(nil) }
        for start in stride(from: 0, to: names.count, by: RecordLog.namesPerStatement) {
            try RecordLog.eachLive(db, zone: zone.id, names: names[start..<min(start + RecordLog.namesPerStatement, names.count)]) { name, entry in
                entries[name] = entry
            }
        }
        known = (zone.id, entries)
    }

    /// The batch's directory entries as `ZonePrefetch` read them with the zone (instead of `prefetch`).
    mutating func know(_ prefetched: ZonePrefetch, zone: ZoneRow) {
        createsAhead = max(1, prefetched.entries.count)
        known = (zone.id, prefetched.entries)
    }

    /// A new record's id: SQLite's rowid as it inserts; on PostgreSQL one of the ids reserved from the table's
    /// sequence, so the insert itself need not wait for an answer.
    private mutating func insertRecord(_ type: CatalogType, _ args: [SQLValue]) throws -> Int64 {
        guard db.dialect.gathersInserts else { return try db.insert(sql(type).insert, args) }
        if reservedIDs[type.id, default: []].isEmpty {
            reservedIDs[type.id] = try TypeStatements.reserveIDs(type, createsAhead, db).reversed()
        }
        let id = reservedIDs[type.id]!.removeLast()
        let rows = sql(type).insertRows
        insertLater(rows.head, rows.tuple, [.int64(id)] + args)
        return id
    }

    func existing(_ zone: ZoneRow, _ name: String) throws -> Existing? {
        if let known, known.zone == zone.id, let hit = known.entries[name] { return hit }
        return try RecordLog.live(db, zone: zone.id, name: name)
    }

    private mutating func sql(_ type: CatalogType) -> TypeStatements {
        if let s = statements[type.id] { return s }
        let s = catalog.statements(of: type, db.dialect) ?? TypeStatements(type, db.dialect)
        statements[type.id] = s
        return s
    }

    mutating func load(_ e: Existing, zone: ZoneRow) throws -> StoredRecord? {
        guard let type = catalog.type(id: e.typeID) else { return nil }
        try flushInserts()
        var sink = StoredRecordSink()
        let streamer = RowStreamer(type: type, fields: type.fields)
        try db.each(sql(type).selectByID, [.int64(e.recordID)]) { row in try streamer.stream(row, zoneID: zone.zoneID, into: &sink) }
        return sink.takeLast()
    }

    // MARK: operations

    mutating func apply(_ op: RecordOperation, zone: ZoneRow) throws -> ModifyResult {
        var incoming = op.record
        if incoming.recordName.isEmpty { incoming.recordName = UUID().uuidString }
        try Names.validate(recordName: incoming.recordName)
        let name = incoming.recordName
        let found = try existing(zone, name)
        var isShare = incoming.recordType == Share.recordType || op.share != nil
        if !isShare, found == nil, name == Share.zoneShareName || op.operationType.isDelete {
            isShare = try ShareRows.find(db, zone: zone, name: name) != nil
        }
        if isShare {
            do { return try applyShare(op, zone: zone) } catch let e as StratusError { throw e } catch { throw WriteFailure(underlying: error) }
        }
        if let access { try permitParticipant(access, op, found: found, parent: incoming.parent, zone: zone) }

        if op.operationType.isDelete { return try applyDelete(op, incoming, found: found, zone: zone) }
        let old = try checkReplace(op, incoming, found: found, zone: zone)

        let typeName = try checkType(op, incoming, old: old)
        var fields = incoming.fields
        if let old, !op.operationType.replacesAllFields {
            fields = old.fields.merging(incoming.fields) { _, new in new }
            for name in op.removedFields where incoming.fields[name] == nil { fields.removeValue(forKey: name) }
        }
        if typeName == UserRecord.recordType { try keepRoles(&fields, sent: incoming.fields[UserRecord.rolesField], user: name) }
        let schemaChange = try planSchema(typeName, fields: &fields, encrypted: op.encryptedFields, makesUserRecord: op.makesUserRecord, recordName: name)

        var record = StoredRecord(recordName: name, recordType: typeName, zoneID: zone.zoneID, fields: fields)
        guard record.storageSize <= StoredRecord.maximumSize else {
            throw StratusError(.limitExceeded, "record '\(name)' is \(record.storageSize) bytes; the limit is 1 MB (assets excluded)", recordName: name)
        }
        try validateReferences(fields, zone: zone, recordName: name)
        if let pz = op.parentZone, pz != zone.zoneID.zoneName {
            throw StratusError(.badRequest, "record '\(name)': its parent is in zone '\(pz.prefix(100))'; a parent must be in the record's own zone", recordName: name)
        }
        let link = try planLink(incoming, zone: zone, isNew: found == nil)
        record.parent = link?.parent
        try checkAssets(incoming.fields, &fields, old: old, recordName: name)
        record.fields = fields
        // The actor's own uploads this record attaches: their charge passes to the record's (see `AssetUploads`).
        let attaching = Self.newAssets(fields, old: old)
        let held = attaching.isEmpty ? 0 : try AssetUploads.held(attaching, by: actor.userRecordName, db)
        let (chargedTo, charge) = try checkCharge(record, old: old, credit: held)
        // Everything a client can get wrong was checked above, before anything was written. From here on a
        // failure is the server's, and it fails the whole batch (WriteFailure) rather than leave half a record.
        defer { if let chargedTo { usage.add(charge, to: chargedTo) } }
        do {
            if let link { try writeLink(link, name: name, zone: zone) }
            var result = try write(op, record: &record, fields: fields, schemaChange: schemaChange, found: found, old: old, zone: zone)
            if held > 0 { usage.add(-(try AssetUploads.attach(attaching, by: actor.userRecordName, db)), to: actor.userRecordName) }
            if case .saved(var r) = result, link?.shareID != nil {
                r.share = try ShareRows.find(db, zone: zone, root: name)?.share.recordName
                result = .saved(r)
            }
            return result
        } catch { throw WriteFailure(underlying: error) }
    }

    /// A delete: the record must exist and the caller may write it; `.delete` (not `.forceDelete`) checks its tag.
    private mutating func applyDelete(_ op: RecordOperation, _ incoming: StoredRecord, found: Existing?, zone: ZoneRow) throws -> ModifyResult {
        let name = incoming.recordName
        guard let found else { throw RecordTypeRule.missing(name) }
        let old = caller != nil || op.operationType.needsChangeTag ? try load(found, zone: zone) : nil
        if let caller, let old {
            try authorize(.write, type: old.recordType, caller: caller, creator: old.created?.userRecordName, recordName: name)
        }
        if op.operationType == .delete { try ChangeTagRule.check(incoming, server: old) }
        do { try delete(found, name: name, zone: zone, visited: []) } catch { throw WriteFailure(underlying: error) }
        return .deleted(recordName: name, zoneID: zone.zoneID)
    }

    /// The record a save replaces (nil for a new one), after checking that the operation may: a create meets no
    /// record, an update meets one the caller may write, of the same type, with the change tag it was read at.
    private mutating func checkReplace(_ op: RecordOperation, _ incoming: StoredRecord, found: Existing?, zone: ZoneRow) throws -> StoredRecord? {
        let name = incoming.recordName
        try RecordTypeRule.mayApply(op.operationType, exists: found != nil, recordName: name)
        guard let found else { return nil }
        if op.operationType == .create {
            throw StratusError(.exists, "record '\(name)' already exists", recordName: name, serverRecord: try load(found, zone: zone))
        }
        let old = try load(found, zone: zone)
        if let caller, let old {
            try authorize(.write, type: old.recordType, caller: caller, creator: old.created?.userRecordName, recordName: name)
        }
        if op.operationType.needsChangeTag { try ChangeTagRule.check(incoming, server: old) }
        return old
    }

    /// The saved record's type (see `RecordTypeRule`), which the caller may create records of.
    private func checkType(_ op: RecordOperation, _ incoming: StoredRecord, old: StoredRecord?) throws -> String {
        let typeName = try RecordTypeRule.type(of: incoming, replacing: old, makesUserRecord: op.makesUserRecord)
        if let caller, old == nil, !op.makesUserRecord {
            try authorize(.create, type: typeName, caller: caller, creator: nil, recordName: incoming.recordName)
        }
        return typeName
    }

    /// The user a record is charged to and by how much; that user must have room for it (a record that shrinks
    /// always fits). (`chargeOwner` is the same rule for what is not a record: a share's fields.)
    /// `credit`: what the actor is charged for uploads this record attaches, which the record's charge replaces.
    private mutating func checkCharge(_ record: StoredRecord, old: StoredRecord?, credit: Int64 = 0) throws -> (user: String?, bytes: Int64) {
        let chargedTo = UserUsage.chargedUser(database, creator: old?.created?.userRecordName ?? actor.userRecordName)
        let charge = UserUsage.charge(record) - (old.map(UserUsage.charge) ?? 0)
        if let chargedTo {
            try usage.check(chargedTo, adding: charge, credit: chargedTo == actor.userRecordName ? credit : 0, recordName: record.recordName, db)
        }
        return (chargedTo, charge)
    }

    private mutating func write(_ op: RecordOperation, record: inout StoredRecord, fields: RecordFields, schemaChange: SchemaDiff?,
                                found: Existing?, old: StoredRecord?, zone: ZoneRow) throws -> ModifyResult {
        let name = record.recordName
        if let schemaChange {
            // Other databases' writes run beside this one on PostgreSQL: the schema changes only in a write alone.
            guard seq.wholeEnvironment else { throw NeedsExclusiveWrite() }
            try flushInserts()
            catalog = try SchemaStorage.apply(schemaChange, to: catalog, db)
            catalogChanged = true
        }
        let type = catalog.type(named: record.recordType)!

        let s = seq.next()
        let tag = ChangeSequence.changeTag(s)
        record.recordChangeTag = tag
        record.created = old?.created ?? RecordStamp(timestamp: now, userRecordName: actor.userRecordName, deviceID: actor.deviceID)
        record.modified = RecordStamp(timestamp: now, userRecordName: actor.userRecordName, deviceID: actor.deviceID)

        let recordID: Int64
        if let found, let old {
            recordID = found.recordID
            try removeIndexEntries(type, recordID: recordID, fields: old.fields)
            var args: [SQLValue] = [.text(tag), .int64(now), .text(actor.userRecordName), .text(actor.deviceID)]
            args.reserveCapacity(5 + type.fields.count * 2)
            for f in type.fields { RecordRowCodec.appendColumnValues(f, fields[f.name], to: &args) }
            args.append(.int64(recordID))
            try db.enqueue(sql(type).update, args)
        } else {
            let created = record.created!
            var args: [SQLValue] = [.int64(zone.id), .text(name), .text(tag),
                                    .int64(created.timestamp), .text(created.userRecordName), .text(created.deviceID),
                                    .int64(now), .text(actor.userRecordName), .text(actor.deviceID)]
            args.reserveCapacity(args.count + type.fields.count * 2)
            for f in type.fields { RecordRowCodec.appendColumnValues(f, fields[f.name], to: &args) }
            recordID = try insertRecord(type, args)
        }
        try addIndexEntries(type, recordID: recordID, fields: fields, zone: zone)
        for v in fields.values where v.mayHoldAssets {
            for checksum in v.assetChecksums { try AssetRows.retain(checksum, db) }
        }
        if let old {
            for checksum in old.fields.values.flatMap(\.assetChecksums) {
                try AssetRows.release(checksum, db)
                releasedAssets.insert(checksum)
            }
        }
        try log(zone: zone, seq: s, name: name, typeID: type.id, recordID: recordID, deleted: false)
        let session = db, catalog = catalog, database = database
        try handOff?.recordChanged(before: old, after: record, zone: zone.zoneID, database: database, catalog: catalog, zoneRow: zone.id, session)
        if found == nil { countChanges[CountKey(zone: zone.id, type: type.id), default: 0] += 1 }
        return .saved(record.keeping(op.desiredKeys))
    }

    /// Security roles on the public database; a type not created yet gets CloudKit's default grants.
    private func authorize(_ p: Permission, type: String, caller: Caller, creator: String?, recordName: String) throws {
        try SecurityPolicy.require(p, recordType: type, grants: catalog.type(named: type)?.grants, caller: caller, creator: creator, recordName: recordName)
    }

    /// Moves the zone's change token with this batch (a change that wrote no record row, such as a share's).
    mutating func touch(_ zone: ZoneRow, _ s: Int64) { touchedZones[zone.id] = max(touchedZones[zone.id] ?? 0, s) }

    private mutating func log(zone: ZoneRow, seq s: Int64, name: String, typeID: Int64, recordID: Int64, deleted: Bool) throws {
        if known?.zone == zone.id, known?.entries[name] != nil {
            known?.entries[name] = .some(deleted ? nil : Existing(typeID: typeID, recordID: recordID))
        }
        // The name's one row moves to the new sequence number (the directory and the change feed are one table).
        try RecordLog.write(db, zone: zone.id, seq: s, name: name, typeID: typeID, recordID: recordID, deleted: deleted)
        touchedZones[zone.id] = s
    }

    // MARK: schema on write

    /// The schema change the save needs, with its values widened (see `SchemaGrowth`).
    private func planSchema(_ typeName: String, fields: inout RecordFields, encrypted: Set<String>, makesUserRecord: Bool,
                            recordName: String) throws -> SchemaDiff? {
        try SchemaGrowth.plan(typeName, known: catalog.type(named: typeName), fields: &fields, encrypted: encrypted, makesUserRecord: makesUserRecord,
                              recordName: recordName, in: SchemaGrowth.Context(environment: environment, scope: database.scope))
    }

    /// A `Users` record's `roles` are the server's: never stored (they are read from the role memberships each time),
    /// and a write that sends other roles than the user has is refused rather than acknowledged and ignored.
    private func keepRoles(_ fields: inout RecordFields, sent: FieldValue?, user: String) throws {
        fields.removeValue(forKey: UserRecord.rolesField)
        guard let sent else { return }
        let held = try RoleMembers.roles(of: user, db).intersection(catalog.roles)
        guard case .list(_, let items) = sent, case .list(_, let current) = UserRecord.roles(held), Set(items) == Set(current) else {
            throw StratusError(.badRequest, "a Users record's roles are the server's (the console assigns roles); they cannot be saved", recordName: user)
        }
    }

    /// Charges `bytes` (negative frees them) to the user whose private data `zone` holds, refusing what would pass
    /// their cap: the record rule above, for what is not a record (a share's fields).
    mutating func chargeOwner(_ zone: ZoneRow, bytes: Int64, recordName: String) throws {
        guard bytes != 0, let user = UserUsage.chargedUser(database, creator: zone.zoneID.ownerRecordName ?? actor.userRecordName) else { return }
        try usage.check(user, adding: bytes, recordName: recordName, db)
        usage.add(bytes, to: user)
    }

    /// The record's assets: a new reference has the caller's receipt and its content exists; the receipts, which
    /// prove an upload at write time, are then taken out (they are not kept, so no read ever hands one out).
    private func checkAssets(_ incoming: RecordFields, _ fields: inout RecordFields, old: StoredRecord?, recordName: String) throws {
        try checkAssetReceipts(incoming, old: old, recordName: recordName)
        for v in fields.values where v.mayHoldAssets {
            for checksum in v.assetChecksums { try AssetRows.check(checksum, db) }
        }
        for (k, v) in fields where v.mayHoldAssets { fields[k] = v.withoutReceipts }
    }

    /// The assets `fields` name that `old` did not.
    static func newAssets(_ fields: RecordFields, old: StoredRecord?) -> Set<String> {
        var named = Set<String>()
        for v in fields.values where v.mayHoldAssets { named.formUnion(v.assetChecksums) }
        guard !named.isEmpty, let old else { return named }
        return named.subtracting(old.fields.values.flatMap(\.assetChecksums))
    }

    /// A new asset reference (one the record did not already hold) needs a receipt of the actor's own upload.
    /// Checked before the asset's existence, so a checksum alone tells a caller nothing.
    private func checkAssetReceipts(_ incoming: RecordFields, old: StoredRecord?, recordName: String) throws {
        guard let receipts else { return }
        var held: Set<String>?
        for v in incoming.values where v.mayHoldAssets {
            for a in v.assets {
                if AssetReceipt.isValid(a.receipt, user: actor.userRecordName, checksum: a.fileChecksum, receipts) { continue }
                if held == nil { held = Set(old?.fields.values.flatMap(\.assetChecksums) ?? []) }
                guard held!.contains(a.fileChecksum) else {
                    throw StratusError(.badRequest, "asset \(a.fileChecksum.prefix(64)) needs the receipt that your assets/upload returned for it",
                                       recordName: recordName)
                }
            }
        }
    }

    // MARK: references

    private func references(in fields: RecordFields, deleteSelfOnly: Bool = false) -> [Reference] {
        var out: [Reference] = []
        for v in fields.values {
            switch v {
            case .reference(let r) where !deleteSelfOnly || r.action == .deleteSelf: out.append(r)
            case .list(.reference, let items):
                for case .reference(let r) in items where !deleteSelfOnly || r.action == .deleteSelf { out.append(r) }
            default: break
            }
        }
        return out
    }

    /// The zone a reference points into: its own zoneID if it names one, otherwise the record's zone.
    private func targetZone(_ r: Reference, from zone: ZoneRow) throws -> ZoneRow? {
        guard let z = r.zoneID, z.zoneName != zone.zoneID.zoneName else { return zone }
        return try ZoneRow.find(db, database, z.zoneName)
    }

    private func validateReferences(_ fields: RecordFields, zone: ZoneRow, recordName: String) throws {
        for r in references(in: fields) where r.action == .validate {
            // A participant sees only what is shared with them: in the shared zone, covered by one of their shares.
            let visible = try access.map { a in
                guard let tz = try targetZone(r, from: zone), tz.id == zone.id else { return false }
                return try participantSees(a, r.recordName, in: tz)
            } ?? true
            guard visible, let tz = try targetZone(r, from: zone), try existing(tz, r.recordName) != nil else {
                throw StratusError(.validatingReferenceError, "record '\(recordName)' references '\(r.recordName)', which does not exist", recordName: recordName)
            }
        }
    }

    // MARK: index tables

    /// One row of an index table (a list's keys: its rows): gathered into multi-row statements where each statement
    /// is a round trip, queued as a statement of its own where it is not.
    private mutating func insertIndexRow(_ single: String, _ rows: (head: String, tuple: String), tail: String = "", _ args: [SQLValue]) throws {
        if db.dialect.gathersInserts { insertLater(rows.head, rows.tuple, tail: tail, args) } else { try db.enqueue(single, args) }
    }

    private mutating func addIndexEntries(_ type: CatalogType, recordID: Int64, fields: RecordFields, zone: ZoneRow) throws {
        let plan = sql(type)
        for f in plan.indexedFields where !deferredTypes.contains(type.id) {
            guard let sql = plan.fieldIndexes[f.id], let v = fields[f.name] else { continue }
            if f.hasFTS, case .string(let s) = v { try insertIndexRow(sql.ftsInsert, sql.ftsRows, [.int64(recordID), .text(s)]) }
            if f.hasGeo, case .location(let l) = v { try insertIndexRow(sql.geoInsert, sql.geoRows, sql.geoArguments(recordID, l)) }
            if f.hasListTable, case .list(_, let items) = v, !items.isEmpty {
                // One statement per list, not per item (on PostgreSQL, per batch).
                var args: [SQLValue] = []
                args.reserveCapacity(items.count * 2)
                for item in items { if let key = CatalogField.listKey(item) { args.append(key); args.append(.int64(recordID)) } }
                guard !args.isEmpty else { continue }
                try insertIndexRow(sql.listInsert(count: args.count / 2), (sql.listRows.head, sql.listRows.tuple), tail: sql.listRows.tail, args)
            }
        }
        for r in references(in: fields, deleteSelfOnly: true) {
            guard let tz = try targetZone(r, from: zone) else { continue }
            try CascadeRefs.add(db, targetZone: tz.id, targetName: r.recordName, sourceType: type.id, sourceID: recordID)
        }
    }

    private mutating func removeIndexEntries(_ type: CatalogType, recordID: Int64, fields: RecordFields) throws {
        try flushInserts()
        let plan = sql(type)
        for f in plan.indexedFields where !deferredTypes.contains(type.id) {
            guard let sql = plan.fieldIndexes[f.id], let v = fields[f.name] else { continue }
            if f.hasFTS { try db.enqueue(sql.ftsDelete, recordID) }
            if f.hasGeo, case .location(let l) = v { try db.enqueue(sql.geoDelete, sql.geoDeleteArguments(recordID, l)) }
            if f.hasListTable, case .list(_, let items) = v {
                for item in items { if let key = CatalogField.listKey(item) { try db.enqueue(sql.listDelete, [key, .int64(recordID)]) } }
            }
        }
        try CascadeRefs.removeSource(db, type: type.id, id: recordID)
    }

    // MARK: delete

    /// Deletes a record and, through DELETE_SELF references, the records that depend on it.
    private mutating func delete(_ e: Existing, name: String, zone: ZoneRow, visited: Set<String>) throws {
        guard let type = catalog.type(id: e.typeID), let old = try load(e, zone: zone) else { return }
        var visited = visited
        visited.insert("\(zone.id)/\(name)")
        try removeIndexEntries(type, recordID: e.recordID, fields: old.fields)
        try TypeStatements.delete(type, id: e.recordID, db)
        if let user = UserUsage.chargedUser(database, creator: old.created?.userRecordName) { usage.add(-UserUsage.charge(old), to: user) }
        for checksum in old.fields.values.flatMap(\.assetChecksums) {
            try AssetRows.release(checksum, db)
            releasedAssets.insert(checksum)
        }
        try log(zone: zone, seq: seq.next(), name: name, typeID: type.id, recordID: e.recordID, deleted: true)
        // Deleting a share's root deletes the share (CloudKit's rule); the record's link row stays, so that
        // participants' change feeds can still tell the deletion was one of theirs.
        if let share = try ShareRows.find(db, zone: zone, root: name) { try deleteShare(share.id, share.share, zone: zone) }
        let session = db, catalog = catalog, database = database
        try handOff?.recordChanged(before: old, after: nil, zone: zone.zoneID, database: database, catalog: catalog, zoneRow: zone.id, session)
        countChanges[CountKey(zone: zone.id, type: type.id), default: 0] -= 1

        for (sourceType, sourceID) in try CascadeRefs.dependents(db, zone: zone.id, name: name) {
            guard let st = catalog.type(id: sourceType),
                  let (zoneID, depName) = try TypeStatements.place(st, id: sourceID, db)
            else { continue }
            guard !visited.contains("\(zoneID)/\(depName)") else { continue }
            let depZone = try ZoneRow.find(db, id: zoneID, live: false) ?? zone
            try delete(Existing(typeID: sourceType, recordID: sourceID), name: depName, zone: depZone, visited: visited)
        }
    }

    /// Writes what is gathered, moves the change tokens of every zone this batch touched, and stores the sequence counter.
    mutating func finish() throws {
        try flushInserts()
        try usage.write(db)
        for (zoneID, s) in touchedZones {
            try ZoneRow.setChangeSeq(db, id: zoneID, s)
        }
        for (key, delta) in countChanges where delta != 0 {
            try RecordCounts.add(db, zone: key.zone, type: key.type, delta)
        }
        try seq.save(db)
    }
}

private extension FieldValue {
    /// Cheap pre-check so the common record (no assets) allocates nothing on the asset path.
    var mayHoldAssets: Bool {
        switch self {
        case .asset, .list(.asset, _): true
        default: false
        }
    }
}

/// A failure after an operation began writing: it fails the whole batch, whose transaction then rolls back.
struct WriteFailure: Error {
    var underlying: any Error
}
