import Foundation
import StratusModel

/// The bytes each user's data takes in an environment, kept in step by every write (`user_usage`), so that a
/// per-user cap (`serve --user-storage-quota-mb`) can be checked without measuring anything: one user filling
/// the environment's quota would otherwise cost every other user their writes.
///
/// What is charged to whom:
/// - a record in a private database (written by its owner or, through a share, by a participant): the database's
///   owner, as CloudKit charges shared records to the owner's iCloud storage;
/// - a record in the public database: its creator;
/// - a subscription: its owner;
/// - an upload no record has attached yet: its uploader (see `AssetUploads`).
/// A record costs its fields' bytes (the 1 MB rule's measure), the assets it references, and `recordOverhead` for
/// its row and index entries; a subscription its stored document and parsed form, and the same overhead.
enum UserUsage {
    static let recordOverhead: Int64 = 128

    static func charge(_ record: StoredRecord) -> Int64 {
        var assets: Int64 = 0
        for v in record.fields.values { assets += assetBytes(v) }
        return Int64(record.storageSize) + assets + recordOverhead
    }

    private static func assetBytes(_ v: FieldValue) -> Int64 {
        switch v {
        case .asset(let a): max(0, a.size)
        case .list(_, let items): items.reduce(0) { $0 + assetBytes($1) }
        default: 0
        }
    }

    static func charge(subscriptionDocument document: String) -> Int64 {
        Int64(document.utf8.count) + recordOverhead
    }

    /// Who a record is charged to: the private database's owner, or the public record's creator.
    static func chargedUser(_ database: DatabaseID, creator: String?) -> String? {
        database.scope == .public ? creator : database.ownerRecordName
    }

    static func bytes(_ user: String, _ s: any SQLSession) throws -> Int64 {
        try UserUsageRows.bytes(user, s)
    }

    /// Adds each user's change (negative for what was freed) in the caller's transaction.
    static func add(_ deltas: [String: Int64], _ s: any SQLSession) throws {
        for (user, delta) in deltas.sorted(by: { $0.key < $1.key }) where delta != 0 && !user.isEmpty {
            try UserUsageRows.add(delta, to: user, s)
        }
    }

    /// Adds `bytes` to `user`'s usage in the caller's transaction and refuses (rolling it back) what takes them past
    /// `limit`: the row is updated first and read back, so two writers at once cannot both fit under the cap
    /// (PostgreSQL holds the row to the commit, SQLite has one writer).
    static func charge(_ user: String, _ bytes: Int64, limit: Int64?, _ s: any SQLSession) throws {
        guard bytes != 0, !user.isEmpty else { return }
        let now = try UserUsageRows.adding(bytes, to: user, s)
        if let limit, bytes > 0, now > limit { throw refusal(user, using: now - bytes, adding: bytes, limit: limit) }
    }

    /// The refusal for a write that would take `user` past `limit`.
    static func refusal(_ user: String, using: Int64, adding: Int64, limit: Int64,
                        recordName: String? = nil) -> StratusError {
        StratusError(.quotaExceeded,
                     "this user's data would take \((using + adding) / 1024) KB of the \(limit / 1024) KB one user may use here: delete some of it",
                     recordName: recordName)
    }

    /// Counts every user's usage from what the environment holds, once (stores made before usage was kept).
    static func backfillIfNeeded(_ s: any SQLSession, catalog: Catalog) throws {
        guard try Meta.value(s, .userUsageCounted) == nil else { return }
        try recount(s, catalog: catalog)
        try Meta.set(s, .userUsageCounted, 1)
    }

    /// Counts every user's usage anew from what the environment holds.
    static func recount(_ s: any SQLSession, catalog: Catalog) throws {
        var totals: [String: Int64] = [:]
        let zones = try ZoneRow.everyLive(s)
        for type in catalog.types {
            let streamer = RowStreamer(type: type, fields: type.fields)
            var sink = StoredRecordSink()
            try TypeStatements.each(type, s) { row in
                guard let (database, name) = zones[row.int64(RecordColumn.zoneID.position) ?? 0] else { return }
                try streamer.stream(row, zoneID: ZoneID(zoneName: name, ownerRecordName: database.ownerRecordName),
                                    into: &sink)
                let record = sink.takeLast()
                if let user = chargedUser(database, creator: record.created?.userRecordName) { totals[user,
                        default: 0] += charge(record) }
            }
        }
        try SubscriptionRows.eachCharge(s) { owner, charge in totals[owner, default: 0] += charge }
        try AssetUploads.eachHeld(s) { uploader, size in totals[uploader, default: 0] += size }
        try UserUsageRows.removeAll(s)
        try add(totals, s)
    }

    /// What the records of one zone are charged, for a zone about to be emptied (zero for the public zone, whose
    /// records are charged to their creators: those are counted anew).
    static func zoneCharge(_ zone: ZoneRow, scope: DatabaseScope, _ catalog: Catalog,
                           _ s: any SQLSession) throws -> Int64 {
        var total: Int64 = 0
        for type in catalog.types {
            let streamer = RowStreamer(type: type, fields: type.fields)
            var sink = StoredRecordSink()
            try TypeStatements.each(type, inZone: zone.id, s) { row in
                try streamer.stream(row, zoneID: zone.zoneID, into: &sink)
                total += charge(sink.takeLast())
            }
        }
        return total
    }
}
