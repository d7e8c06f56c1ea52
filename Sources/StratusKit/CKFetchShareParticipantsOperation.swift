import Foundation

/// Mirrors `CKFetchShareParticipantsOperation`: participants to add to a share, from email addresses or user
/// record IDs.
open class CKFetchShareParticipantsOperation: CKOperation, @unchecked Sendable {
    /// Mirrors `CKFetchShareParticipantsOperation.userIdentityLookupInfos`.
    public var userIdentityLookupInfos: [CKUserIdentity.LookupInfo]?
    /// Mirrors `CKFetchShareParticipantsOperation.perShareParticipantResultBlock`.
    public var perShareParticipantResultBlock: ((CKUserIdentity.LookupInfo, Result<CKShare.Participant, any Error>) -> Void)?
    /// Mirrors `CKFetchShareParticipantsOperation.fetchShareParticipantsResultBlock`.
    public var fetchShareParticipantsResultBlock: ((Result<Void, any Error>) -> Void)?

    /// Mirrors `CKFetchShareParticipantsOperation()`.
    public override init() { super.init() }

    /// Mirrors `CKFetchShareParticipantsOperation(userIdentityLookupInfos:)`.
    public convenience init(userIdentityLookupInfos: [CKUserIdentity.LookupInfo]) {
        self.init()
        self.userIdentityLookupInfos = userIdentityLookupInfos
    }

    override func execute() async {
        var errors: [AnyHashable: any Error] = [:]
        for info in userIdentityLookupInfos ?? [] {
            if isCancelled { break }
            do {
                perShareParticipantResultBlock?(info, .success(try await container.shareParticipant(for: info)))
            } catch {
                errors[info] = error
                perShareParticipantResultBlock?(info, .failure(error))
            }
        }
        if isCancelled { fetchShareParticipantsResultBlock?(.failure(CKError.make(.operationCancelled, "the operation was cancelled"))); return }
        fetchShareParticipantsResultBlock?(partialFailure(errors, "participants").map { .failure($0) } ?? .success(()))
    }
}
