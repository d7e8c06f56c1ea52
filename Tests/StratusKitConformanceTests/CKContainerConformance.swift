import StratusKit

/// `CKContainer` as Apple declares it for iOS 17 / macOS 14 (deprecated members left out). Each line is a typed
/// reference: a label, type, optionality, `async` or `throws` that differs from the declaration fails the build.
func ckContainerConformance() {
    let _: () -> CKContainer = CKContainer.default
    let _: (String) -> CKContainer = CKContainer.init(identifier:)
    let _: KeyPath<CKContainer, String?> = \CKContainer.containerIdentifier
    let _: KeyPath<CKContainer, CKDatabase> = \CKContainer.privateCloudDatabase
    let _: KeyPath<CKContainer, CKDatabase> = \CKContainer.publicCloudDatabase
    let _: KeyPath<CKContainer, CKDatabase> = \CKContainer.sharedCloudDatabase
    let _: (CKContainer) -> (CKDatabase.Scope) -> CKDatabase = CKContainer.database(with:)
    let _: (CKContainer) -> (CKOperation) -> Void = CKContainer.add(_:)
    let _: (CKContainer) -> () async throws -> CKAccountStatus = CKContainer.accountStatus
    let _: (CKContainer) -> (@escaping @Sendable (CKAccountStatus, (any Error)?) -> Void) -> Void = CKContainer.accountStatus(completionHandler:)
    let _: (CKContainer) -> () async throws -> CKRecord.ID = CKContainer.userRecordID
    let _: (CKContainer) -> (@escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) -> Void = CKContainer.fetchUserRecordID(completionHandler:)

    // Sharing.
    let _: (CKContainer) -> (URL, Bool, [CKRecord.FieldKey]?) async throws -> CKShare.Metadata
        = CKContainer.shareMetadata(for:shouldFetchRootRecord:rootRecordDesiredKeys:)
    let _: (CKContainer) -> ([URL], Bool, [CKRecord.FieldKey]?) async throws -> [URL: Result<CKShare.Metadata, any Error>]
        = CKContainer.shareMetadatas(for:shouldFetchRootRecord:rootRecordDesiredKeys:)
    let _: (CKContainer) -> (URL, @escaping @Sendable (CKShare.Metadata?, (any Error)?) -> Void) -> Void = CKContainer.fetchShareMetadata(with:completionHandler:)
    let _: (CKContainer) -> (CKShare.Metadata) async throws -> CKShare = CKContainer.accept(_:)
    let _: (CKContainer) -> ([CKShare.Metadata]) async throws -> [CKShare.Metadata: Result<CKShare, any Error>] = CKContainer.accept(_:)
    let _: (CKContainer) -> (CKShare.Metadata, @escaping @Sendable (CKShare?, (any Error)?) -> Void) -> Void = CKContainer.accept(_:completionHandler:)
    let _: (CKContainer) -> (String) async throws -> CKShare.Participant = CKContainer.shareParticipant(forEmailAddress:)
    let _: (CKContainer) -> (String) async throws -> CKShare.Participant = CKContainer.shareParticipant(forPhoneNumber:)
    let _: (CKContainer) -> (CKRecord.ID) async throws -> CKShare.Participant = CKContainer.shareParticipant(forUserRecordID:)
    let _: (CKContainer) -> ([CKUserIdentity.LookupInfo]) async throws -> [CKUserIdentity.LookupInfo: Result<CKShare.Participant, any Error>]
        = CKContainer.shareParticipants(for:)
    let _: (CKContainer) -> (String, @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) -> Void
        = CKContainer.fetchShareParticipant(withEmailAddress:completionHandler:)
    let _: (CKContainer) -> (String, @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) -> Void
        = CKContainer.fetchShareParticipant(withPhoneNumber:completionHandler:)
    let _: (CKContainer) -> (CKRecord.ID, @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) -> Void
        = CKContainer.fetchShareParticipant(withUserRecordID:completionHandler:)

    // Long-lived operations.
    let _: (CKContainer) -> (@escaping @Sendable ([CKOperation.ID]?, (any Error)?) -> Void) -> Void = CKContainer.fetchAllLongLivedOperationIDs(completionHandler:)
    let _: (CKContainer) -> (CKOperation.ID, @escaping @Sendable (CKOperation?, (any Error)?) -> Void) -> Void
        = CKContainer.fetchLongLivedOperation(withID:completionHandler:)

    // Account status and its notification.
    let _: [CKAccountStatus] = [.couldNotDetermine, .available, .restricted, .noAccount, .temporarilyUnavailable]
    let _: Notification.Name = .CKAccountChanged
    let _: String = CKCurrentUserDefaultName
}
