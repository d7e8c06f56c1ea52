import Foundation
import StratusJSON

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
        /// Mirrors `CKShare.Metadata.ownerIdentity`: the share's owner as the share names it.
        public let ownerIdentity: CKUserIdentity
        /// Mirrors `CKShare.Metadata.participantRole`.
        public let participantRole: ParticipantRole
        /// Mirrors `CKShare.Metadata.participantStatus`.
        public let participantStatus: ParticipantAcceptanceStatus
        /// Mirrors `CKShare.Metadata.participantPermission`.
        public let participantPermission: ParticipantPermission
        let shortGUID: String

        init?(wire j: WireObject, scope: CKDatabase.Scope) {
            guard let guid = j["shortGUID"]?.string, let s = j["share"]?.object else { return nil }
            let zone = RecordCoder.zoneID(j["zoneID"], scope: .shared)
            guard let share = RecordCoder.record(s, scope: .shared, zoneID: zone, assets: nil) as? CKShare else { return nil }
            shortGUID = guid
            containerIdentifier = j["containerIdentifier"]?.string ?? ""
            self.share = share
            hierarchicalRootRecordID = (j["rootRecordName"]?.string).map { CKRecord.ID(recordName: $0, zoneID: zone) }
            rootRecord = (j["rootRecord"]?.object).flatMap { RecordCoder.record($0, scope: .shared, zoneID: zone, assets: nil) }
            ownerIdentity = (j["ownerIdentity"]?.object).flatMap(CKUserIdentity.init(wire:)) ?? share.owner.userIdentity
            participantRole = ParticipantRole(wire: j["participantType"]?.string)
            participantStatus = ParticipantAcceptanceStatus(wire: j["participantStatus"]?.string)
            participantPermission = ParticipantPermission(wire: j["participantPermission"]?.string)
        }
    }
}

extension CKContainer {
    /// Mirrors `CKContainer.shareMetadata(for:shouldFetchRootRecord:rootRecordDesiredKeys:)`: what a share link
    /// (`CKShare.url`) leads to (`records/resolve`). `rootRecordDesiredKeys` limits the root record's fields.
    public func shareMetadata(for url: URL, shouldFetchRootRecord: Bool = false, rootRecordDesiredKeys: [CKRecord.FieldKey]? = nil) async throws -> CKShare.Metadata {
        let guid = url.lastPathComponent
        let j = try await services.database(.public, "records/resolve", ["shortGUIDs": [["value": JSON(guid), "shouldFetchRootRecord": JSON(shouldFetchRootRecord)]]])
        guard let item = (j["results"]?.objects)?.first else { throw CKError.make(.serverResponseLost, "records/resolve answered nothing") }
        if item["serverErrorCode"] != nil { throw CKError.from(server: item, scope: .shared, zoneID: .default) }
        guard let m = CKShare.Metadata(wire: item, scope: .shared) else { throw CKError.make(.serverResponseLost, "unreadable share metadata") }
        m.share.resolveURL(base: services.configuration.serverURL)
        if let keys = rootRecordDesiredKeys, let root = m.rootRecord { root.keepOnly(Set(keys)) }
        return m
    }

    /// Mirrors `CKContainer.accept(_:)`: joins the share; its zone then shows in this user's shared database.
    @discardableResult
    public func accept(_ metadata: CKShare.Metadata) async throws -> CKShare {
        let j = try await services.database(.public, "records/accept", ["shortGUIDs": [["value": JSON(metadata.shortGUID)]]])
        guard let item = (j["results"]?.objects)?.first else { throw CKError.make(.serverResponseLost, "records/accept answered nothing") }
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

    /// Mirrors `CKContainer.shareParticipant(forPhoneNumber:)`. Stratus accounts have no phone numbers, so no user is
    /// found by one: it fails with `.unknownItem`, as CloudKit's does for a number that belongs to nobody.
    public func shareParticipant(forPhoneNumber phoneNumber: String) async throws -> CKShare.Participant {
        throw CKError.make(.unknownItem, "no user of this server is found by the phone number \(phoneNumber)")
    }

    /// A participant from any lookup info.
    func shareParticipant(for info: CKUserIdentity.LookupInfo) async throws -> CKShare.Participant {
        if let email = info.emailAddress { return try await shareParticipant(forEmailAddress: email) }
        if let id = info.userRecordID { return try await shareParticipant(forUserRecordID: id) }
        return try await shareParticipant(forPhoneNumber: info.phoneNumber ?? "")
    }

    /// Mirrors `CKContainer.fetchShareMetadata(with:completionHandler:)`.
    public func fetchShareMetadata(with url: URL, completionHandler: @escaping @Sendable (CKShare.Metadata?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await shareMetadata(for: url), nil) } catch { completionHandler(nil, error) }
        }
    }

    /// Mirrors `CKContainer.shareMetadatas(for:shouldFetchRootRecord:rootRecordDesiredKeys:)`: each link's metadata,
    /// by its URL.
    public func shareMetadatas(for urls: [URL], shouldFetchRootRecord: Bool = false, rootRecordDesiredKeys: [CKRecord.FieldKey]? = nil) async throws
        -> [URL: Result<CKShare.Metadata, any Error>] {
        var out: [URL: Result<CKShare.Metadata, any Error>] = [:]
        for url in urls {
            do {
                out[url] = .success(try await shareMetadata(for: url, shouldFetchRootRecord: shouldFetchRootRecord, rootRecordDesiredKeys: rootRecordDesiredKeys))
            } catch {
                out[url] = .failure(error)
            }
        }
        return out
    }

    /// Mirrors `CKContainer.accept(_:completionHandler:)`.
    public func accept(_ metadata: CKShare.Metadata, completionHandler: @escaping @Sendable (CKShare?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await accept(metadata), nil) } catch { completionHandler(nil, error) }
        }
    }

    /// Mirrors `CKContainer.accept(_:)` for several shares: each share's result, by its metadata.
    public func accept(_ metadatas: [CKShare.Metadata]) async throws -> [CKShare.Metadata: Result<CKShare, any Error>] {
        var out: [CKShare.Metadata: Result<CKShare, any Error>] = [:]
        for m in metadatas {
            do { out[m] = .success(try await accept(m)) } catch { out[m] = .failure(error) }
        }
        return out
    }

    /// Mirrors `CKContainer.shareParticipants(for:)`.
    public func shareParticipants(for lookupInfos: [CKUserIdentity.LookupInfo]) async throws -> [CKUserIdentity.LookupInfo: Result<CKShare.Participant, any Error>] {
        var out: [CKUserIdentity.LookupInfo: Result<CKShare.Participant, any Error>] = [:]
        for info in lookupInfos {
            do { out[info] = .success(try await shareParticipant(for: info)) } catch { out[info] = .failure(error) }
        }
        return out
    }

    /// Mirrors `CKContainer.fetchShareParticipant(withEmailAddress:completionHandler:)`.
    public func fetchShareParticipant(withEmailAddress email: String, completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await shareParticipant(forEmailAddress: email), nil) } catch { completionHandler(nil, error) } }
    }

    /// Mirrors `CKContainer.fetchShareParticipant(withPhoneNumber:completionHandler:)`.
    public func fetchShareParticipant(withPhoneNumber phoneNumber: String, completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await shareParticipant(forPhoneNumber: phoneNumber), nil) } catch { completionHandler(nil, error) } }
    }

    /// Mirrors `CKContainer.fetchShareParticipant(withUserRecordID:completionHandler:)`.
    public func fetchShareParticipant(withUserRecordID id: CKRecord.ID, completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await shareParticipant(forUserRecordID: id), nil) } catch { completionHandler(nil, error) } }
    }
}
