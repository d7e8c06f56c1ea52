import Foundation
import StratusJSON

/// Mirrors `CKRecordNameZoneWideShare`: the record name of every zone-wide share.
public let CKRecordNameZoneWideShare = "cloudkit.zoneshare"

/// Mirrors `CKShare`: a record that shares a root record (and its children by `parent`) or a whole zone with
/// participants. Save it together with its root record in one `modifyRecords`, as with CloudKit; its `url` is the
/// link others open or accept (`CKContainer.shareMetadata(for:)` then `accept(_:)`).
open class CKShare: CKRecord, @unchecked Sendable {
    /// Mirrors `CKShare.ParticipantPermission`.
    public enum ParticipantPermission: Int, Sendable {
        case unknown = 0, none = 1, readOnly = 2, readWrite = 3

        var wire: String {
            switch self {
            case .unknown: "UNKNOWN"
            case .none: "NONE"
            case .readOnly: "READ_ONLY"
            case .readWrite: "READ_WRITE"
            }
        }

        init(wire: String?) { self = [.none, .readOnly, .readWrite].first { $0.wire == wire } ?? .unknown }
    }

    /// Mirrors `CKShare.ParticipantRole`.
    public enum ParticipantRole: Int, Sendable {
        case unknown = 0, owner = 1, privateUser = 3, publicUser = 4, administrator = 2

        /// The wire's names for the roles it sends (`USER` is a private user, as CloudKit Web Services spells it).
        private static let byWire: [String: ParticipantRole] = ["OWNER": .owner, "USER": .privateUser,
                                                                "PUBLIC_USER": .publicUser,
                "ADMINISTRATOR": .administrator]

        init(wire: String?) { self = wire.flatMap { Self.byWire[$0] } ?? .unknown }
    }

    /// Mirrors `CKShare.ParticipantAcceptanceStatus`.
    public enum ParticipantAcceptanceStatus: Int, Sendable {
        case unknown = 0, pending = 1, accepted = 2, removed = 3

        private static let byWire: [String: ParticipantAcceptanceStatus] = ["INVITED": .pending, "ACCEPTED": .accepted,
                "REMOVED": .removed]

        init(wire: String?) { self = wire.flatMap { Self.byWire[$0] } ?? .unknown }
    }

    /// Mirrors `CKShare.Participant`.
    public final class Participant: NSObject, @unchecked Sendable {
        /// Mirrors `CKShare.Participant.userIdentity`.
        public let userIdentity: CKUserIdentity
        /// Mirrors `CKShare.Participant.permission`.
        public var permission: ParticipantPermission
        /// Mirrors `CKShare.Participant.role`.
        public var role: ParticipantRole
        /// Mirrors `CKShare.Participant.acceptanceStatus`.
        public internal(set) var acceptanceStatus: ParticipantAcceptanceStatus
        /// Mirrors `CKShare.Participant.participantID`.
        public let participantID: String

        init(identity: CKUserIdentity, permission: ParticipantPermission, role: ParticipantRole,
             status: ParticipantAcceptanceStatus, id: String) {
            userIdentity = identity
            self.permission = permission
            self.role = role
            acceptanceStatus = status
            participantID = id
        }

        convenience init?(wire j: WireObject) {
            guard let identity = (j["userIdentity"]?.object).flatMap(CKUserIdentity.init(wire:)) else { return nil }
            self.init(identity: identity, permission: ParticipantPermission(wire: j["permission"]?.string),
                      role: ParticipantRole(wire: j["type"]?.string),
                      status: ParticipantAcceptanceStatus(wire: j["acceptanceStatus"]?.string),
                      id: j["participantId"]?.string ?? identity.userRecordID?.recordName ?? UUID().uuidString)
        }

        var wire: WireObject {
            var lookup: WireObject = [:]
            if let e = userIdentity.lookupInfo?.emailAddress { lookup["emailAddress"] = JSON(e) }
            if let u = userIdentity.userRecordID?.recordName ?? userIdentity.lookupInfo?.userRecordID?.recordName { lookup["userRecordName"] = JSON(u) }
            return ["userIdentity": ["lookupInfo": JSON(lookup)], "permission": JSON(permission.wire)]
        }
    }

    /// Mirrors `CKShare.publicPermission`: what anyone with the link may do.
    public var publicPermission: ParticipantPermission = .none
    /// Mirrors `CKShare.participants`: as the server tells this caller (an owner sees everyone; others see the
    /// owner and themselves).
    public internal(set) var participants: [Participant] = []
    /// Mirrors `CKShare.owner`: before the share is first saved, the current user, as in CloudKit.
    public var owner: Participant {
        ownerParticipant ?? Participant(identity: CKUserIdentity(lookupUser: CKRecord.ID(recordName: CKCurrentUserDefaultName)), permission: .readWrite,
                                        role: .owner, status: .accepted, id: CKCurrentUserDefaultName)
    }
    var ownerParticipant: Participant?
    /// Mirrors `CKShare.currentUserParticipant`.
    public internal(set) var currentUserParticipant: Participant?
    /// Mirrors `CKShare.url`: the share's link, once saved.
    public internal(set) var url: URL?
    var rootRecordName: String?
    var shortGUID: String?
    var participantsChanged = false

    /// Mirrors `CKShare(rootRecord:)`: a share of this record (save both together).
    public init(rootRecord: CKRecord) {
        rootRecordName = rootRecord.recordID.recordName
        super.init(recordType: CKRecord.SystemType.share, recordID: CKRecord.ID(zoneID: rootRecord.recordID.zoneID))
    }

    /// Mirrors `CKShare(rootRecord:shareID:)`: a share of this record with the given record ID.
    public init(rootRecord: CKRecord, shareID: CKRecord.ID) {
        rootRecordName = rootRecord.recordID.recordName
        super.init(recordType: CKRecord.SystemType.share, recordID: shareID)
    }

    /// Mirrors `CKShare(recordZoneID:)`: a share of a whole zone.
    public init(recordZoneID: CKRecordZone.ID) {
        super.init(recordType: CKRecord.SystemType.share, recordID: CKRecord.ID(recordName: CKRecordNameZoneWideShare,
                zoneID: recordZoneID))
    }

    init(decodedID: CKRecord.ID) {
        super.init(recordType: CKRecord.SystemType.share, recordID: decodedID)
    }

    /// Reads what `encode(with:)` wrote; nil for a damaged archive.
    public required init?(coder: NSCoder) { super.init(coder: coder) }

    /// Mirrors `CKShare.addParticipant(_:)`.
    public func addParticipant(_ participant: Participant) {
        if !participants.contains(where: { $0 === participant }) { participants.append(participant) }
        participantsChanged = true
    }

    /// Mirrors `CKShare.removeParticipant(_:)`.
    public func removeParticipant(_ participant: Participant) {
        participants.removeAll { $0 === participant || $0.participantID == participant.participantID }
        participantsChanged = true
    }

    func readShare(_ j: WireObject, scope: CKDatabase.Scope) {
        publicPermission = ParticipantPermission(wire: j["publicPermission"]?.string)
        participants = (j["participants"]?.objects ?? []).compactMap(Participant.init(wire:))
        ownerParticipant = (j["owner"]?.object).flatMap(Participant.init(wire:))
        currentUserParticipant = (j["currentUserParticipant"]?.object).flatMap(Participant.init(wire:))
        rootRecordName = (j["forRecord"]?.object)?["recordName"]?.string
        shortGUID = j["shortGUID"]?.string
        participantsChanged = false
    }

    func writeShare(into record: inout WireObject) {
        if let root = rootRecordName { record["forRecord"] = ["recordName": JSON(root)] }
        record["publicPermission"] = JSON(publicPermission.wire)
        // The owner is the server's to keep; only the others are sent.
        record["participants"] = JSON(participants.filter { $0.role != .owner }.map(\.wire))
    }

    /// What the server answered for this share, kept on the app's own object after a save.
    func copyShare(from saved: CKShare?) {
        guard let saved else { return }
        participants = saved.participants
        ownerParticipant = saved.ownerParticipant
        currentUserParticipant = saved.currentUserParticipant
        shortGUID = saved.shortGUID
        url = saved.url
        participantsChanged = false
    }

    /// The link, from the server the share was read through.
    func resolveURL(base: URL) {
        if let g = shortGUID { url = base.appendingPathComponent("share").appendingPathComponent(g) }
    }
}
