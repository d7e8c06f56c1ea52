import Foundation

/// Mirrors `CKAcceptSharesOperation`: joins shares whose metadata the app fetched; each share's zone then shows
/// in the user's shared database.
open class CKAcceptSharesOperation: CKOperation, @unchecked Sendable {
    /// Mirrors `CKAcceptSharesOperation.shareMetadatas`.
    public var shareMetadatas: [CKShare.Metadata]?
    /// Mirrors `CKAcceptSharesOperation.perShareResultBlock`.
    public var perShareResultBlock: ((CKShare.Metadata, Result<CKShare, any Error>) -> Void)?
    /// Mirrors `CKAcceptSharesOperation.acceptSharesResultBlock`.
    public var acceptSharesResultBlock: ((Result<Void, any Error>) -> Void)?

    /// Mirrors `CKAcceptSharesOperation()`.
    public override init() { super.init() }

    /// Mirrors `CKAcceptSharesOperation(shareMetadatas:)`.
    public convenience init(shareMetadatas: [CKShare.Metadata]) {
        self.init()
        self.shareMetadatas = shareMetadatas
    }

    override func execute() async {
        let c = container
        let result = await eachInTurn(shareMetadatas ?? [], key: { $0.share.recordID }, what: "shares",
                                      { try await c.accept($0) }) { perShareResultBlock?($0, $1) }
        acceptSharesResultBlock?(result)
    }
}
