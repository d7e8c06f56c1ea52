import Foundation

/// Mirrors `CKFetchShareParticipantsOperation`: participants to add to a share, from email addresses or user
/// record IDs.
open class CKFetchShareParticipantsOperation: CKOperation, @unchecked Sendable {
    /// Mirrors `CKFetchShareParticipantsOperation.userIdentityLookupInfos`.
    public var userIdentityLookupInfos: [CKUserIdentity.LookupInfo]?
    /// Mirrors `CKFetchShareParticipantsOperation.perShareParticipantResultBlock`.
    public var perShareParticipantResultBlock: ((CKUserIdentity.LookupInfo, Result<CKShare.Participant,
                                                 any Error>) -> Void)?
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
        let c = container
        let result = await eachInTurn(userIdentityLookupInfos ?? [], key: { $0 }, what: "participants",
                                      { try await c.shareParticipant(for: $0) }) {
            perShareParticipantResultBlock?($0, $1)
        }
        fetchShareParticipantsResultBlock?(result)
    }
}
