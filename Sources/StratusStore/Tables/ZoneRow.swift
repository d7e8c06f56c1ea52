import StratusModel

/// A zone as stored in `zones`: its row id (what records and tokens refer to) and its identity. The table's
/// statements are `ZoneRow+Table.swift`'s; nothing else writes SQL on `zones`.
struct ZoneRow: Sendable, Hashable {
    var id: Int64
    var zoneID: ZoneID
    var atomic: Bool
    var changeSeq: Int64

    /// The columns of `zones`.
    enum Column: String, TableColumn {
        case id, scope, owner, name, atomic, deleted, changeSeq = "change_seq", createdAt = "created_at"
    }

    /// What a zone's row is read from.
    static let identity = Selection<Column>([.id, .name, .owner, .atomic, .changeSeq])

    init(id: Int64, zoneID: ZoneID, atomic: Bool, changeSeq: Int64) {
        self.id = id
        self.zoneID = zoneID
        self.atomic = atomic
        self.changeSeq = changeSeq
    }

    /// A zone read through `identity` (or a selection with its columns).
    init(_ r: NamedRow<Column>) {
        self.init(id: r.int64(.id) ?? 0, zoneID: ZoneID(zoneName: r.string(.name) ?? "",
                                                        ownerRecordName: r.string(.owner)),
                  atomic: r.bool(.atomic) ?? false, changeSeq: r.int64(.changeSeq) ?? 0)
    }

    /// The database the zone belongs to, whose change counter orders its changes. Zones are stored for the
    /// public and private databases only (the shared database shows owners' private zones).
    var database: DatabaseID {
        let owner = zoneID.ownerRecordName ?? ""
        return owner == DatabaseID.publicOwner ? .publicDatabase : .privateDatabase(of: owner)
    }

    /// The zone a request names: ZONE_NOT_FOUND unless it exists (the default zone always does).
    static func resolve(_ s: any SQLSession, _ database: DatabaseID, _ zoneID: ZoneID,
                        seq: inout SequenceAllocator) throws -> ZoneRow {
        if zoneID.isDefault { return try findOrCreateDefault(s, database, seq: &seq) }
        guard let z = try find(s, database, zoneID.zoneName) else { throw try missing(s, database, zoneID) }
        return z
    }

    /// Why a zone the request names is not there: USER_DELETED_ZONE when its owner purged it; ZONE_NOT_FOUND marked
    /// `userDidResetEncryptedData` when their encrypted-data reset deleted it (as CloudKit reports both); else
    /// ZONE_NOT_FOUND.
    static func missing(_ s: any SQLSession, _ database: DatabaseID, _ zoneID: ZoneID) throws -> StratusError {
        switch try deletionReason(s, database, zoneID.zoneName) {
        case .purged?:
            return StratusError(.userDeletedZone,
                                "zone '\(zoneID.zoneName)' was purged by its owner: create it again to use it",
                    zoneID: zoneID)
        case .encryptedDataReset?:
            var e = StratusError(.zoneNotFound,
                                 "zone '\(zoneID.zoneName)' was deleted when its owner reset their encrypted data: create it again and upload what you kept", zoneID: zoneID)
            e.userDidResetEncryptedData = true
            return e
        default:
            return StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
        }
    }
}
