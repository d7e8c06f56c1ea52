import Foundation
import StratusModel

/// Sharing inside a modify batch: share records (`cloudkit.share`), the `parent` links that make a hierarchy,
/// and what a participant writing through their shared database may do.
extension RecordWriter {
    // MARK: participants

    /// A participant's write to a record of the owner's zone: allowed when a READ_WRITE share covers the record
    /// (for a new record, its parent). A record the participant cannot see at all is NOT_FOUND, not ACCESS_DENIED,
    /// so that nothing outside their shares is revealed.
    func permitParticipant(_ access: SharedZoneAccess, _ op: RecordOperation, found: Existing?, parent: String?,
                           zone: ZoneRow) throws {
        let name = op.record.recordName
        if let p = access.zonePermission {
            guard p.allowsWrite else { throw denied(name, "the share gives you read-only access") }
            return
        }
        // A save that makes a record, or one that moves it to another parent, needs a parent in the share.
        let creates = op.operationType.createsWhenMissing, moves = parent != nil && parent != "" && !op.operationType.isDelete
        if found != nil {
            let covering = try RecordLinks.link(db, zone: zone.id, name: name)?.shareID
            guard let covering, let p = access.shares[covering] else {
                // A record not shared with the caller is answered as one that does not exist: it meets the rules a
                // missing one meets, and only a save those let through, which would make a missing record, learns
                // that the name is taken (it cannot be made, as in CloudKit).
                if creates || moves { try requireSharedParent(access, parent, name: name, zone: zone) }
                if creates { throw denied(name, "its name is taken in this zone") }
                throw StratusError(.notFound, "record '\(name)' does not exist", recordName: name)
            }
            guard p.allowsWrite else { throw denied(name, "the share gives you read-only access") }
            // What the share covers is the owner's to decide: a participant neither ends it (deleting its root)
            // nor takes a record out of it (clearing its parent), which would hide it from everyone else.
            if op.operationType.isDelete, try ShareRows.find(db, zone: zone, root: name) != nil {
                throw denied(name,
                             "it is the root of the share, which only the owner ends (delete the share record to leave it)")
            }
            if parent == "" { throw denied(name, "taking a record out of the share is the owner's to do") }
        }
        // A new record, or a record moved to another parent, must hang under a READ_WRITE share.
        if (found == nil && creates) || moves { try requireSharedParent(access, parent, name: name, zone: zone) }
    }

    /// A record a participant makes or moves hangs under a READ_WRITE share of theirs.
    private func requireSharedParent(_ access: SharedZoneAccess, _ parent: String?, name: String,
                                     zone: ZoneRow) throws {
        guard let parent, !parent.isEmpty else {
            throw denied(name, "records you create in a shared hierarchy need a parent inside it")
        }
        guard let covering = try RecordLinks.link(db, zone: zone.id, name: parent)?.shareID ?? ShareRows.find(db,
                zone: zone, root: parent)?.id,
              let p = access.shares[covering] else {
            throw denied(name, "parent '\(parent.prefix(100))' is not in a hierarchy shared with you")
        }
        guard p.allowsWrite else { throw denied(name, "the share gives you read-only access") }
    }

    /// Whether a participant sees `name` in `zone`: through a zone share, or a hierarchy share of theirs covering
    /// it (its root included). A record they do not see is, to them, one that does not exist.
    func participantSees(_ access: SharedZoneAccess, _ name: String, in zone: ZoneRow) throws -> Bool {
        if access.zonePermission != nil { return true }
        if let covering = try RecordLinks.link(db, zone: zone.id,
                                               name: name)?.shareID, access.shares[covering] != nil { return true }
        if let root = try ShareRows.find(db, zone: zone, root: name), access.shares[root.id] != nil { return true }
        return false
    }

    private func denied(_ name: String, _ why: String) -> StratusError {
        StratusError(.accessDenied, "you may not write record '\(name)': \(why)", recordName: name)
    }

    // MARK: parent links

    /// What a write does to the record's link: checked before anything is written.
    struct LinkPlan {
        var parent: String?
        var shareID: Int64?
        /// Whether the row must be written (and descendants revisited when the covering share moved).
        var changed, coverageMoved: Bool
    }

    /// Works out `parent` (nil: keep the record's, "": clear it) and the share that will cover the record.
    /// Refused: a parent in another zone, a missing parent, a cycle, and a record that would belong to two shares.
    func planLink(_ incoming: StoredRecord, zone: ZoneRow, isNew: Bool) throws -> LinkPlan? {
        let name = incoming.recordName
        let old = isNew ? nil : try RecordLinks.link(db, zone: zone.id, name: name)
        guard incoming.parent != nil || old != nil else { return nil }
        let parent: String? = incoming.parent.map { $0.isEmpty ? nil : $0 } ?? old?.parent
        var shareID: Int64? = nil
        let ownShare = try ShareRows.find(db, zone: zone, root: name)?.id
        if let parent {
            guard parent != name else { throw StratusError(.badRequest, "record '\(name)' cannot be its own parent",
                                                           recordName: name) }
            guard try existing(zone, parent) != nil else {
                throw StratusError(.badRequest,
                                   "parent '\(parent.prefix(100))' of record '\(name)' does not exist in zone '\(zone.zoneID.zoneName)'", recordName: name)
            }
            if try isAncestor(name, of: parent, zone: zone) {
                throw StratusError(.badRequest,
                                   "parent '\(parent.prefix(100))' would make a cycle: it hangs under record '\(name)'",
                        recordName: name)
            }
            let parentLink = try RecordLinks.link(db, zone: zone.id, name: parent)
            shareID = parentLink?.shareID
        }
        if let ownShare {
            if let s = shareID, s != ownShare {
                throw StratusError(.badRequest,
                                   "record '\(name)' is the root of a share and cannot join another share's hierarchy",
                        recordName: name)
            }
            shareID = ownShare
        }
        let changed = old == nil || old!.parent != parent || old!.shareID != shareID
        let moved = !isNew && old?.shareID != shareID
        if moved, shareID != nil, try subtreeHoldsShareRoot(name, zone: zone) {
            throw StratusError(.badRequest,
                               "record '\(name)' has a shared record below it; a record can belong to one share only",
                    recordName: name)
        }
        return LinkPlan(parent: parent, shareID: shareID, changed: changed, coverageMoved: moved)
    }

    func writeLink(_ plan: LinkPlan, name: String, zone: ZoneRow) throws {
        guard plan.changed else { return }
        try RecordLinks.set(db, zone: zone.id, name: name, parent: plan.parent, shareID: plan.shareID)
        if plan.coverageMoved { try cover(below: name, with: plan.shareID, zone: zone) }
    }

    func isAncestor(_ ancestor: String, of name: String, zone: ZoneRow) throws -> Bool {
        try RecordLinks.isAncestor(db, ancestor, of: name, zone: zone.id)
    }

    func subtreeHoldsShareRoot(_ name: String, zone: ZoneRow) throws -> Bool {
        try RecordLinks.subtreeHoldsShareRoot(db, name, zone: zone.id)
    }

    func cover(below name: String, with shareID: Int64?, zone: ZoneRow) throws {
        try RecordLinks.cover(db, below: name, with: shareID, zone: zone.id)
    }

    // MARK: share records

    /// Creates, changes or deletes a share record. Only the zone's owner changes a share; a participant (writing
    /// through their shared database) may only delete it, which removes them from it.
    mutating func applyShare(_ op: RecordOperation, zone: ZoneRow) throws -> ModifyResult {
        let name = op.record.recordName
        let found = try ShareRows.find(db, zone: zone, name: name)
        if let access {
            guard let found, access.zonePermission != nil || access.shares[found.id] != nil else {
                throw StratusError(.notFound, "share '\(name)' does not exist", recordName: name)
            }
            guard op.operationType.isDelete else {
                throw StratusError(.accessDenied,
                                   "only the share's owner may change share '\(name)'; a participant may only leave it (delete)", recordName: name)
            }
            try ShareRows.remove(db, share: found.id, user: actor.userRecordName)
            try SharedZoneLog.note(db, zone, users: [actor.userRecordName], removed: true, seq: &seq)
            return .deleted(recordName: name, zoneID: access.zoneID)
        }
        guard database.scope == .private, !zone.zoneID.isDefault else {
            throw StratusError(.badRequest, "shares live in custom zones of the private database", recordName: name)
        }
        if op.operationType.isDelete {
            guard let found else { throw StratusError(.notFound, "share '\(name)' does not exist", recordName: name) }
            if op.operationType == .delete, op.record.recordChangeTag != found.share.recordChangeTag {
                throw StratusError(.conflict,
                                   "share '\(name)' was changed since tag \((op.record.recordChangeTag ?? "").prefix(20)); server has \(found.share.recordChangeTag)", recordName: name)
            }
            try deleteShare(found.id, found.share, zone: zone)
            return .deleted(recordName: name, zoneID: zone.zoneID)
        }
        let request = op.share ?? ShareRequest()
        if let found {
            guard op.operationType != .create else { throw StratusError(.exists, "share '\(name)' already exists",
                    recordName: name) }
            if op.operationType.needsChangeTag, op.record.recordChangeTag != found.share.recordChangeTag {
                throw StratusError(.conflict,
                                   "share '\(name)' was changed since tag \((op.record.recordChangeTag ?? "").prefix(20)); server has \(found.share.recordChangeTag)", recordName: name)
            }
            if let root = request.forRecord, root != found.share.rootRecordName {
                throw StratusError(.badRequest,
                                   "share '\(name)' is for record '\(found.share.rootRecordName ?? Share.zoneShareName)'; a share's root cannot change", recordName: name)
            }
            var fields = op.operationType.replacesAllFields ? op.record.fields : found.share.fields.merging(op.record.fields) { _, new in new }
            for removed in op.removedFields where op.record.fields[removed] == nil { fields.removeValue(forKey: removed) }
            try chargeShareFields(fields, old: found.share.fields, name: name, zone: zone)
            return .savedShare(try updateShare(found.id, found.share, request, fields: fields, zone: zone))
        }
        guard op.operationType.createsWhenMissing else { throw StratusError(.notFound, "share '\(name)' does not exist",
                recordName: name) }
        try chargeShareFields(op.record.fields, old: [:], name: name, zone: zone)
        return .savedShare(try createShare(name, request, fields: op.record.fields, zone: zone))
    }

    /// A share's fields are checked as a record's are (each value of its own type, 1 MB in all), and charged to the
    /// zone's owner like the rest of their private data.
    private mutating func chargeShareFields(_ fields: RecordFields, old: RecordFields, name: String,
                                            zone: ZoneRow) throws {
        for (key, value) in fields {
            guard let type = value.fieldType else { throw StratusError(.badRequest,
                                                                       "share field '\(key)' is an empty list of no type", recordName: name) }
            do { try value.validate(as: type, field: key) } catch {
                var e = error
                e.recordName = name
                throw e
            }
        }
        let size = ShareFields.size(fields)
        guard size <= Int64(ShareFields.maximumBytes) else {
            throw StratusError(.limitExceeded, "share '\(name)' holds \(size) bytes of fields; the limit is 1 MB",
                               recordName: name)
        }
        try chargeOwner(zone, bytes: size - ShareFields.size(old), recordName: name)
    }

    private mutating func createShare(_ name: String, _ request: ShareRequest, fields: RecordFields,
                                      zone: ZoneRow) throws -> Share {
        let isZoneShare = name == Share.zoneShareName
        let zoneShared = try ShareRows.zoneHasShares(db, zone: zone.id, zoneWide: true)
        if isZoneShare {
            guard request.forRecord == nil else {
                throw StratusError(.badRequest,
                                   "a zone share (\(Share.zoneShareName)) shares the whole zone and takes no forRecord",
                        recordName: name)
            }
            guard try !ShareRows.zoneHasShares(db, zone: zone.id) else {
                throw StratusError(.badRequest,
                                   "zone '\(zone.zoneID.zoneName)' already has shares; a zone share cannot join them",
                        recordName: name)
            }
        } else {
            guard let root = request.forRecord, !root.isEmpty else {
                throw StratusError(.badRequest,
                                   "share '\(name)' needs forRecord (the root of the hierarchy), or the name \(Share.zoneShareName) to share the zone", recordName: name)
            }
            guard !zoneShared else { throw StratusError(.badRequest,
                                                        "zone '\(zone.zoneID.zoneName)' is shared as a whole; its records cannot have shares of their own", recordName: name) }
            guard try existing(zone, root) != nil else {
                throw StratusError(.badRequest,
                                   "forRecord '\(root.prefix(100))' does not exist in zone '\(zone.zoneID.zoneName)'",
                        recordName: name)
            }
            if let covering = try RecordLinks.link(db, zone: zone.id, name: root)?.shareID {
                let other = try ShareRows.recordName(db, id: covering) ?? "another share"
                throw StratusError(.badRequest,
                                   "record '\(root.prefix(100))' already belongs to share '\(other)'; a record can belong to one share only", recordName: name)
            }
            if try subtreeHoldsShareRoot(root, zone: zone) {
                throw StratusError(.badRequest,
                                   "a record below '\(root.prefix(100))' is already shared; a record can belong to one share only", recordName: name)
            }
        }
        let invitees = try resolveInvitees(request.participants, name: name)
        let s = seq.next()
        let tag = ChangeSequence.changeTag(s)
        let id = try ShareRows.insert(db, zone: zone.id, name: name, root: isZoneShare ? nil : request.forRecord,
                                      publicPermission: request.publicPermission ?? .none,
                                      changeTag: tag, at: now, by: actor.userRecordName, fields: ShareFields.encode(fields))
        try ShareRows.addOwner(db, share: id, user: zone.zoneID.ownerRecordName ?? actor.userRecordName)
        try setInvitees(id, invitees ?? [], owner: zone.zoneID.ownerRecordName ?? actor.userRecordName)
        if let root = request.forRecord, !isZoneShare {
            let parent = try RecordLinks.link(db, zone: zone.id, name: root)?.parent
            try RecordLinks.set(db, zone: zone.id, name: root, parent: parent, shareID: id)
            try cover(below: root, with: id, zone: zone)
        }
        touch(zone, s)
        return try ShareRows.find(db, zone: zone, name: name)!.share
    }

    private mutating func updateShare(_ id: Int64, _ old: Share, _ request: ShareRequest, fields: RecordFields,
                                      zone: ZoneRow) throws -> Share {
        let resolved = try resolveInvitees(request.participants, name: old.recordName)
        let s = seq.next()
        try ShareRows.update(db, id: id, publicPermission: request.publicPermission ?? old.publicPermission,
                             changeTag: ChangeSequence.changeTag(s), at: now,
                             by: actor.userRecordName, fields: ShareFields.encode(fields))
        if let invitees = resolved {
            // Participants the owner left out are removed (their access ends now); the others keep their status.
            let keep = Set(invitees.map(\.userRecordName))
            let gone = old.participants.filter { $0.type != .owner && !keep.contains($0.userRecordName) && $0.acceptanceStatus != .removed }
            for p in gone {
                try ShareRows.remove(db, share: id, user: p.userRecordName)
            }
            try SharedZoneLog.note(db, zone,
                                   users: gone.filter { $0.acceptanceStatus == .accepted }.map(\.userRecordName),
                    removed: true, seq: &seq)
            try setInvitees(id, invitees, owner: old.owner?.userRecordName ?? actor.userRecordName)
        }
        if (request.publicPermission ?? old.publicPermission) == .none, old.publicPermission != .none {
            let publicUsers = old.participants.filter { $0.type == .publicUser && $0.acceptanceStatus == .accepted }.map(\.userRecordName)
            try SharedZoneLog.note(db, zone, users: publicUsers, removed: true, seq: &seq)
        }
        touch(zone, s)
        return try ShareRows.find(db, zone: zone, name: old.recordName)!.share
    }

    /// Adds or updates invited users; someone who had left or was removed is invited again.
    private func setInvitees(_ id: Int64, _ invitees: [ResolvedInvitee], owner: String) throws {
        var position = try ShareRows.nextPosition(db, share: id)
        for i in invitees where i.userRecordName != owner {
            try ShareRows.invite(db, share: id, user: i.userRecordName, email: i.emailAddress, permission: i.permission,
                                 position: position)
            position += 1
        }
    }

    struct ResolvedInvitee {
        var userRecordName: String
        var emailAddress: String?
        var permission: SharePermission
    }

    /// The people the owner names, checked before anything is written; more than 100 participants is BAD_REQUEST
    /// (CloudKit's limit). An address is invited the same way whether or not it has an account: one without is a
    /// pending invitation (`ShareParticipant.pendingName`) that becomes the person's when they sign up, so that a
    /// share tells its owner nothing about who uses the container. A user record name must be a user's.
    func resolveInvitees(_ invitees: [ShareRequest.Invitee]?, name: String) throws -> [ResolvedInvitee]? {
        guard let invitees else { return nil }
        guard invitees.count < Share.maximumParticipants else {
            throw StratusError(.badRequest,
                               "share '\(name)' would have \(invitees.count + 1) participants; the limit is \(Share.maximumParticipants)", recordName: name)
        }
        var out: [ResolvedInvitee] = []
        for i in invitees {
            guard i.permission != .none else {
                throw StratusError(.badRequest,
                                   "share '\(name)': a participant's permission is READ_ONLY or READ_WRITE",
                        recordName: name)
            }
            let user = users?(i.lookup)
            switch i.lookup {
            case .emailAddress(let e):
                let address = e.trimmingCharacters(in: .whitespaces)
                guard EmailAddress.isValid(address) else {
                    throw StratusError(.badRequest, "share '\(name)': '\(address.prefix(100))' is not an email address",
                                       recordName: name)
                }
                out.append(ResolvedInvitee(userRecordName: user?.userRecordName ?? ShareParticipant.pendingName(email: address), emailAddress: address, permission: i.permission))
            case .userRecordName(let u):
                guard let user else {
                    throw StratusError(.badRequest, "share '\(name)': no user '\(u.prefix(100))' uses this container",
                                       recordName: name)
                }
                out.append(ResolvedInvitee(userRecordName: user.userRecordName, emailAddress: nil,
                                           permission: i.permission))
            }
        }
        return out
    }

    /// Deletes a share: its participants lose access at once and the zone leaves their shared databases.
    mutating func deleteShare(_ id: Int64, _ share: Share, zone: ZoneRow) throws {
        try chargeOwner(zone, bytes: -ShareFields.size(share.fields), recordName: share.recordName)
        let members = share.participants.filter { $0.type != .owner && $0.acceptanceStatus == .accepted }.map(\.userRecordName)
        try RecordLinks.uncover(db, share: id)
        try ShareRows.delete(db, id: id)
        try SharedZoneLog.note(db, zone, users: members, removed: true, seq: &seq)
        touch(zone, seq.next())
    }
}
