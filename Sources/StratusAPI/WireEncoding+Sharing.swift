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
        w.key("fields"); w.beginObject(); w.endObject()
        w.key("created"); stamp(s.created, &w)
        w.key("modified"); stamp(s.modified, &w)
        w.field("deleted", false)
        w.key("zoneID"); zoneID(s.zoneID, &w)
        if let root = s.rootRecordName {
            w.key("forRecord"); w.beginObject(); w.field("recordName", root); w.key("zoneID"); zoneID(s.zoneID, &w); w.endObject()
        }
        w.field("shortGUID", s.shortGUID)
        w.field("publicPermission", s.publicPermission.rawValue)
        // Who else is on a share, and by which address, is for its members: someone looking at a link open to anyone
        // sees the owner (and themselves, once they joined).
        let member = viewer.flatMap { s.participant($0) }.map { $0.acceptanceStatus != .removed } ?? false
        w.key("participants")
        w.beginArray()
        for p in s.participants where (member && p.acceptanceStatus != .removed) || p.type == .owner || p.userRecordName == viewer { participant(p, &w) }
        w.endArray()
        if let owner = s.owner { w.key("owner"); participant(owner, &w) }
        if let viewer, let me = s.participant(viewer) { w.key("currentUserParticipant"); participant(me, &w) }
        w.endObject()
    }

    /// A Participant: the user identity (with the email the owner invited them by, if any), permission, type, status.
    func participant(_ p: ShareParticipant, _ w: inout JSONWriter) {
        w.beginObject()
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
        w.field("permission", p.permission.rawValue)
        w.field("type", p.type.rawValue)
        w.field("acceptanceStatus", p.acceptanceStatus.rawValue)
        w.endObject()
    }
}
