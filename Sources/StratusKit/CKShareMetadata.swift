import Foundation

extension CKShare {
    /// Mirrors `CKShare.Metadata`: what a share's link leads to, read before accepting it.
    public final class Metadata: NSObject, @unchecked Sendable {
        /// Mirrors `CKShare.Metadata.containerIdentifier`.
        public let containerIdentifier: String
        /// Mirrors `CKShare.Metadata.share`.
        public let share: CKShare
        /// Mirrors `hierarchicalRootRecordID`: the shared record (nil for a zone-wide share).
        public let hierarchicalRootRecordID: CKRecord.ID?
        /// Mirrors `CKShare.Metadata.rootRecord`.
        public let rootRecord: CKRecord?
        /// Mirrors `CKShare.Metadata.ownerIdentity`.
        public let ownerIdentity: CKUserIdentity?
        /// Mirrors `CKShare.Metadata.participantRole`.
        public let participantRole: ParticipantRole
        /// Mirrors `CKShare.Metadata.participantStatus`.
        public let participantStatus: ParticipantAcceptanceStatus
        /// Mirrors `CKShare.Metadata.participantPermission`.
        public let participantPermission: ParticipantPermission
        let shortGUID: String

        init?(wire j: [String: Any], scope: CKDatabase.Scope) {
            guard let guid = j["shortGUID"] as? String, let s = j["share"] as? [String: Any] else { return nil }
            let zone = RecordCoder.zoneID(j["zoneID"], scope: .shared)
            guard let share = RecordCoder.record(s, scope: .shared, zoneID: zone, assets: nil) as? CKShare else { return nil }
            shortGUID = guid
            containerIdentifier = j["containerIdentifier"] as? String ?? ""
            self.share = share
            hierarchicalRootRecordID = (j["rootRecordName"] as? String).map { CKRecord.ID(recordName: $0, zoneID: zone) }
            rootRecord = (j["rootRecord"] as? [String: Any]).flatMap { RecordCoder.record($0, scope: .shared, zoneID: zone, assets: nil) }
            ownerIdentity = (j["ownerIdentity"] as? [String: Any]).flatMap(CKUserIdentity.init(wire:))
            participantRole = ParticipantRole(wire: j["participantType"] as? String)
            participantStatus = ParticipantAcceptanceStatus(wire: j["participantStatus"] as? String)
            participantPermission = ParticipantPermission(wire: j["participantPermission"] as? String)
        }
    }
}

extension CKContainer {
    /// Mirrors `CKContainer.shareMetadata(for:shouldFetchRootRecord:)`: what a share link (`CKShare.url`) leads to
    /// (`records/resolve`).
    public func shareMetadata(for url: URL, shouldFetchRootRecord: Bool = false) async throws -> CKShare.Metadata {
        let guid = url.lastPathComponent
        let j = try await services.database(.public, "records/resolve", ["shortGUIDs": [["value": guid, "shouldFetchRootRecord": shouldFetchRootRecord]]])
        guard let item = (j["results"] as? [[String: Any]])?.first else { throw CKError.make(.serverResponseLost, "records/resolve answered nothing") }
        if item["serverErrorCode"] != nil { throw CKError.from(server: item, scope: .shared, zoneID: .default) }
        guard let m = CKShare.Metadata(wire: item, scope: .shared) else { throw CKError.make(.serverResponseLost, "unreadable share metadata") }
        m.share.resolveURL(base: services.configuration.serverURL)
        return m
    }

    /// Mirrors `CKContainer.accept(_:)`: joins the share; its zone then shows in this user's shared database.
    @discardableResult
    public func accept(_ metadata: CKShare.Metadata) async throws -> CKShare {
        let j = try await services.database(.public, "records/accept", ["shortGUIDs": [["value": metadata.shortGUID]]])
        guard let item = (j["results"] as? [[String: Any]])?.first else { throw CKError.make(.serverResponseLost, "records/accept answered nothing") }
        if item["serverErrorCode"] != nil { throw CKError.from(server: item, scope: .shared, zoneID: .default) }
        guard let m = CKShare.Metadata(wire: item, scope: .shared) else { throw CKError.make(.serverResponseLost, "unreadable share") }
        m.share.resolveURL(base: services.configuration.serverURL)
        return m.share
    }

    /// Mirrors `CKContainer.shareParticipant(forEmailAddress:)`: a participant to add to a share, invited by email
    /// address (someone without an account yet joins when they sign up with it).
    public func shareParticipant(forEmailAddress email: String) async throws -> CKShare.Participant {
        let identity = CKUserIdentity(lookupEmail: email)
        return CKShare.Participant(identity: identity, permission: .readOnly, role: .privateUser, status: .pending, id: "invited:" + email.lowercased())
    }

    /// Mirrors `CKContainer.shareParticipant(forUserRecordID:)`.
    public func shareParticipant(forUserRecordID id: CKRecord.ID) async throws -> CKShare.Participant {
        let identity = CKUserIdentity(lookupUser: id)
        return CKShare.Participant(identity: identity, permission: .readOnly, role: .privateUser, status: .pending, id: id.recordName)
    }
}
