/// What a `records/modify` operation on a share record asks for. Nil members leave the share's as they are
/// (on create: no public access, the owner alone).
public struct ShareRequest: Sendable, Hashable {
    /// How the owner names someone to invite: CloudKit's `lookupInfo`.
    public enum Lookup: Sendable, Hashable {
        case emailAddress(String)
        case userRecordName(String)
    }

    public struct Invitee: Sendable, Hashable {
        public var lookup: Lookup
        public var permission: SharePermission

        public init(lookup: Lookup, permission: SharePermission) {
            self.lookup = lookup
            self.permission = permission
        }
    }

    public var forRecord: String?
    public var publicPermission: SharePermission?
    public var participants: [Invitee]?

    public init(forRecord: String? = nil, publicPermission: SharePermission? = nil, participants: [Invitee]? = nil) {
        self.forRecord = forRecord
        self.publicPermission = publicPermission
        self.participants = participants
    }
}
