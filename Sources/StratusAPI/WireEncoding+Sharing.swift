import Crypto
import Foundation
import StratusModel

/// Share records and participants in CloudKit Web Services' shapes.
extension WireEncoding {
    /// A share record: the record keys, then `shortGUID`, `publicPermission`, `participants`, `owner` and
    /// `currentUserParticipant` (the viewer's own entry, when they are on the share).
    func share(_ s: Share, viewer: String?, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("recordName", s.recordName)
        w.field("recordType", Share.recordType)
        w.field("recordChangeTag", s.recordChangeTag)
        w.key("fields")
        w.beginObject()
        for (name, value) in s.fields.sorted(by: { $0.key < $1.key }) { field(name, value, &w) }
        w.endObject()
        w.key("created"); stamp(s.created, &w)
        w.key("modified"); stamp(s.modified, &w)
        w.field("deleted", false)
        w.key("zoneID"); zoneID(s.zoneID, &w)
        if let root = s.rootRecordName {
            w.key("forRecord"); w.beginObject(); w.field("recordName", root); w.key("zoneID"); zoneID(s.zoneID,
                    &w); w.endObject()
        }
        w.field("shortGUID", s.shortGUID)
        w.field("publicPermission", s.publicPermission.rawValue)
        // Who else is on a share, and by which address, is the owner's to see: anyone else (a participant, someone
        // looking at a link open to anyone) sees the owner and themselves.
        let isOwner = viewer != nil && s.owner?.userRecordName == viewer
        w.key("participants")
        w.beginArray()
        for p in s.participants where (isOwner && p.acceptanceStatus != .removed) || p.type == .owner || p.userRecordName == viewer { participant(p, &w) }
        w.endArray()
        if let owner = s.owner { w.key("owner"); participant(owner, &w) }
        if let viewer, let me = s.participant(viewer) { w.key("currentUserParticipant"); participant(me, &w) }
        w.endObject()
    }

    /// A Participant: the user identity (with the email the owner invited them by, if any), permission, type, status.
    /// Someone invited by address who has not joined shows only that address, with an id made from it: whether the
    /// address has an account does not show (see `ShareParticipant.isUnconfirmed`).
    func participant(_ p: ShareParticipant, _ w: inout JSONWriter) {
        w.beginObject()
        if p.isUnconfirmed, let e = p.emailAddress {
            w.field("participantId", "invited-" + String(Self.digest(e.lowercased()).prefix(32)))
            w.key("userIdentity")
            w.beginObject()
            w.key("lookupInfo")
            w.beginObject()
            w.field("emailAddress", e)
            w.endObject()
            w.endObject()
        } else {
            w.field("participantId", p.userRecordName)
            w.key("userIdentity")
            w.beginObject()
            w.field("userRecordName", p.userRecordName)
            w.key("lookupInfo")
            w.beginObject()
            if let e = p.emailAddress { w.field("emailAddress", e) }
            w.field("userRecordName", p.userRecordName)
            w.endObject()
            w.endObject()
        }
        w.field("permission", p.permission.rawValue)
        w.field("type", p.type.rawValue)
        w.field("acceptanceStatus", p.acceptanceStatus.rawValue)
        w.endObject()
    }

    static func digest(_ s: String) -> String { SHA256.hash(data: Data(s.utf8)).map { String(format: "%02x",
            $0) }.joined() }
}
