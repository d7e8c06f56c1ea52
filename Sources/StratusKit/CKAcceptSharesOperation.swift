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
        var errors: [AnyHashable: any Error] = [:]
        for metadata in shareMetadatas ?? [] {
            if isCancelled { break }
            do {
                perShareResultBlock?(metadata, .success(try await container.accept(metadata)))
            } catch {
                errors[metadata.share.recordID] = error
                perShareResultBlock?(metadata, .failure(error))
            }
        }
        if isCancelled { acceptSharesResultBlock?(.failure(CKError.make(.operationCancelled, "the operation was cancelled"))); return }
        acceptSharesResultBlock?(partialFailure(errors, "shares").map { .failure($0) } ?? .success(()))
    }
}
