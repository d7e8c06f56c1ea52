import StratusKit

/// `CKShare` with its participants, metadata and system field keys, and `CKUserIdentity` with its lookup info.
func ckShareConformance() {
    let _: (CKRecord) -> CKShare = CKShare.init(rootRecord:)
    let _: (CKRecord, CKRecord.ID) -> CKShare = CKShare.init(rootRecord:shareID:)
    let _: (CKRecordZone.ID) -> CKShare = CKShare.init(recordZoneID:)
    let _: (NSCoder) -> CKShare? = CKShare.init(coder:)
    let _: ReferenceWritableKeyPath<CKShare, CKShare.ParticipantPermission> = \CKShare.publicPermission
    let _: KeyPath<CKShare, URL?> = \CKShare.url
    let _: KeyPath<CKShare, [CKShare.Participant]> = \CKShare.participants
    let _: KeyPath<CKShare, CKShare.Participant> = \CKShare.owner
    let _: KeyPath<CKShare, CKShare.Participant?> = \CKShare.currentUserParticipant
    let _: (CKShare) -> (CKShare.Participant) -> Void = CKShare.addParticipant(_:)
    let _: (CKShare) -> (CKShare.Participant) -> Void = CKShare.removeParticipant(_:)
    let _: CKRecord.FieldKey = CKShare.SystemFieldKey.title
    let _: CKRecord.FieldKey = CKShare.SystemFieldKey.thumbnailImageData
    let _: CKRecord.FieldKey = CKShare.SystemFieldKey.shareType

    // Participants.
    let _: KeyPath<CKShare.Participant, CKUserIdentity> = \CKShare.Participant.userIdentity
    let _: ReferenceWritableKeyPath<CKShare.Participant, CKShare.ParticipantRole> = \CKShare.Participant.role
    let _: KeyPath<CKShare.Participant, CKShare.ParticipantAcceptanceStatus> = \CKShare.Participant.acceptanceStatus
    let _: ReferenceWritableKeyPath<CKShare.Participant, CKShare.ParticipantPermission> = \CKShare.Participant.permission
    let _: [CKShare.ParticipantRole] = [.unknown, .owner, .privateUser, .publicUser]
    let _: [CKShare.ParticipantAcceptanceStatus] = [.unknown, .pending, .accepted, .removed]
    let _: [CKShare.ParticipantPermission] = [.unknown, .none, .readOnly, .readWrite]

    // Metadata.
    let _: KeyPath<CKShare.Metadata, String> = \CKShare.Metadata.containerIdentifier
    let _: KeyPath<CKShare.Metadata, CKShare> = \CKShare.Metadata.share
    let _: KeyPath<CKShare.Metadata, CKRecord.ID?> = \CKShare.Metadata.hierarchicalRootRecordID
    let _: KeyPath<CKShare.Metadata, CKRecord?> = \CKShare.Metadata.rootRecord
    let _: KeyPath<CKShare.Metadata, CKUserIdentity> = \CKShare.Metadata.ownerIdentity
    let _: KeyPath<CKShare.Metadata, CKShare.ParticipantRole> = \CKShare.Metadata.participantRole
    let _: KeyPath<CKShare.Metadata, CKShare.ParticipantAcceptanceStatus> = \CKShare.Metadata.participantStatus
    let _: KeyPath<CKShare.Metadata, CKShare.ParticipantPermission> = \CKShare.Metadata.participantPermission

    // CKUserIdentity.
    let _: KeyPath<CKUserIdentity, CKRecord.ID?> = \CKUserIdentity.userRecordID
    let _: KeyPath<CKUserIdentity, CKUserIdentity.LookupInfo?> = \CKUserIdentity.lookupInfo
    let _: KeyPath<CKUserIdentity, PersonNameComponents?> = \CKUserIdentity.nameComponents
    let _: KeyPath<CKUserIdentity, Bool> = \CKUserIdentity.hasiCloudAccount
    let _: (String) -> CKUserIdentity.LookupInfo = CKUserIdentity.LookupInfo.init(emailAddress:)
    let _: (String) -> CKUserIdentity.LookupInfo = CKUserIdentity.LookupInfo.init(phoneNumber:)
    let _: (CKRecord.ID) -> CKUserIdentity.LookupInfo = CKUserIdentity.LookupInfo.init(userRecordID:)
    let _: ([String]) -> [CKUserIdentity.LookupInfo] = CKUserIdentity.LookupInfo.lookupInfos(withEmails:)
    let _: ([String]) -> [CKUserIdentity.LookupInfo] = CKUserIdentity.LookupInfo.lookupInfos(withPhoneNumbers:)
    let _: ([CKRecord.ID]) -> [CKUserIdentity.LookupInfo] = CKUserIdentity.LookupInfo.lookupInfos(with:)
    let _: KeyPath<CKUserIdentity.LookupInfo, String?> = \CKUserIdentity.LookupInfo.emailAddress
    let _: KeyPath<CKUserIdentity.LookupInfo, String?> = \CKUserIdentity.LookupInfo.phoneNumber
    let _: KeyPath<CKUserIdentity.LookupInfo, CKRecord.ID?> = \CKUserIdentity.LookupInfo.userRecordID
}
