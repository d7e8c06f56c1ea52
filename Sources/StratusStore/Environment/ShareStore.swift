import Foundation
import StratusModel

/// Sharing: share URLs, acceptance, participants and invitations (the shared databases' zones are `SharedZones`).
public struct ShareStore: EnvironmentPart {
    let core: EnvironmentDatabase
    let records: StoredRecords
}

/// Share URLs: resolving a short GUID and accepting a share.
extension ShareStore {
    /// What `records/resolve` and the share page show: the share, seen by `user` (nil: not signed in), and its root
    /// record when asked for. Someone the share is not for gets ACCESS_DENIED and learns nothing else.
    public func resolveShare(_ shortGUID: String, user: String?, fetchRoot: Bool = false,
                             desiredKeys: [String]? = nil) throws(StratusError) -> (share: Share, root: StoredRecord?) {
        try read { db, catalog in
            let (_, share, zone) = try findShare(db, shortGUID)
            guard Self.mayOpen(share, user: user) else { throw Self.notForYou(shortGUID) }
            var root: StoredRecord? = nil
            if fetchRoot, let name = share.rootRecordName {
                root = try records.fetch([name], zone: zone, catalog: catalog, desiredKeys: desiredKeys, db)[name]
            }
            return (share, root)
        }
    }

    /// The owner, the share's participants (unless removed), and anyone when the share has a public permission.
    static func mayOpen(_ share: Share, user: String?) -> Bool {
        if share.publicPermission != .none { return true }
        guard let user, let p = share.participant(user) else { return false }
        return p.acceptanceStatus != .removed
    }

    static func notForYou(_ shortGUID: String) -> StratusError {
        StratusError(.accessDenied, "this share is not shared with you")
    }

    private func findShare(_ db: any SQLSession, _ shortGUID: String) throws -> (Int64, Share, ZoneRow) {
        guard ShortGUID.isWellFormed(shortGUID), let found = try ShareRows.find(db,
                shortGUID: shortGUID) else { throw Self.notForYou(shortGUID) }
        return (found.id, found.share, found.zone)
    }

    /// `records/accept`: an invited participant accepts; with a public permission anyone joins as PUBLIC_USER.
    /// Accepting again changes nothing. The zone then appears in the user's shared database.
    public func acceptShare(_ shortGUID: String, user: String) throws(StratusError) -> Share {
        try write { db, _ in
            let (id, share, zone) = try findShare(db, shortGUID)
            if share.owner?.userRecordName == user { return share }
            var seq = try SequenceAllocator(db, .privateDatabase(of: zone.zoneID.ownerRecordName ?? ""))
            switch share.participant(user) {
            case let p? where p.acceptanceStatus == .accepted:
                return share
            case let p? where p.acceptanceStatus == .invited || share.publicPermission != .none:
                let type = p.acceptanceStatus == .invited ? p.type : .publicUser
                try ShareRows.accept(db, share: id, user: user, as: type)
            case nil where share.publicPermission != .none:
                guard share.participants.filter({ $0.acceptanceStatus != .removed }).count < Share.maximumParticipants else {
                    throw StratusError(.limitExceeded,
                                       "this share has \(Share.maximumParticipants) participants, CloudKit's limit")
                }
                try ShareRows.joinPublicly(db, share: id, user: user, permission: share.publicPermission)
            default:
                throw Self.notForYou(shortGUID)
            }
            try SharedZoneLog.note(db, zone, users: [user], removed: false, seq: &seq)
            try seq.save(db)
            return try ShareRows.find(db, zone: zone, name: share.recordName)!.share
        }
    }

    /// A new account takes over the invitations its address had while it had none (see `resolveInvitees`).
    func claimInvitations(email: String, user: String) throws(StratusError) {
        let pending = ShareParticipant.pendingName(email: email)
        try write { db, _ in try ShareRows.claim(db, pending: pending, by: user) }
    }

    /// Every share of this environment, for the console: newest first.
    /// The users who have accepted a share that `user` has accepted too (owners included): the people an app's
    /// user knows here, as the address book is on iCloud (`users/discover` without lookups).
    public func sharingPartners(of user: String) throws(StratusError) -> [String] {
        try read { db, _ in try ShareRows.partners(db, of: user) }
    }

    public func allShares(limit: Int = 500) throws(StratusError) -> [Share] { try allSharesByID(limit: limit).map(\.share) }

    /// The same, each with the number the console names it by (a share's GUID is a capability, and its names may be
    /// users' data).
    public func allSharesByID(limit: Int = 500) throws(StratusError) -> [(id: Int64, share: Share)] {
        try read { db, _ in
            try ShareRows.newestIDs(db, limit: limit).compactMap { id in try ShareRows.find(db, id: id).map { (id,
                    $0.share) } }
        }
    }

    /// Deletes a share (the console's revoke), named by its number (see `allSharesByID`), never by its short GUID,
    /// which is a capability. Participants lose access on their next request.
    public func revokeShare(id: Int64) throws(StratusError) -> Share {
        try write { db, catalog in
            guard let (share, zone) = try ShareRows.find(db, id: id).map({ ($0.share, $0.zone) }) else {
                throw StratusError(.notFound, "There is no such share.")
            }
            var writer = try RecordWriter(db: db, catalog: catalog, environment: environment,
                                          database: .privateDatabase(of: zone.zoneID.ownerRecordName ?? ""),
                                          actor: RequestActor(userRecordName: zone.zoneID.ownerRecordName ?? "",
                                                              deviceID: "console"))
            try writer.deleteShare(id, share, zone: zone)
            try writer.finish()
            return share
        }
    }
}

extension ShareStore {
    /// Whether a share with this short GUID lives here (the share page's search across environments).
    public func holdsShare(_ shortGUID: String) -> Bool {
        guard ShortGUID.isWellFormed(shortGUID) else { return false }
        return (try? read { db, _ in try ShareRows.exists(db, shortGUID: shortGUID) }) ?? false
    }

    /// The record type of a share's root (nil for a zone share), for the share page.
    public func rootRecordType(of share: Share) throws(StratusError) -> String? {
        guard let root = share.rootRecordName else { return nil }
        return try read { db, catalog in
            guard let zone = try ZoneRow.find(db, .privateDatabase(of: share.zoneID.ownerRecordName ?? ""),
                                              share.zoneID.zoneName),
                  let typeID = try RecordLog.live(db, zone: zone.id, name: root)?.typeID
            else { return nil }
            return catalog.type(id: typeID)?.name
        }
    }
}

extension ShareStore {
    /// Share records by name in a zone, as `records/lookup` serves them: the owner's, or in the shared database those
    /// the participant has accepted there.
    public func shares(named names: [String], in database: DatabaseID,
                       zoneID: ZoneID) throws(StratusError) -> [String: Share] {
        guard !names.isEmpty, database.scope != .public else { return [:] }
        return try read { db, _ in
            let (zoneRow, access) = try SharedZones.resolve(db, database, zoneID)
            guard let zone = zoneRow else { return [:] }
            var out: [String: Share] = [:]
            for name in names {
                guard let (id, share) = try ShareRows.find(db, zone: zone, name: name) else { continue }
                if let access, !(share.isZoneShare ? access.zonePermission != nil : access.shares[id] != nil) { continue }
                out[name] = share
            }
            return out
        }
    }
}
