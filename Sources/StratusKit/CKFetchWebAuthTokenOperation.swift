import Foundation

/// Mirrors `CKFetchWebAuthTokenOperation`: the web auth token that lets a web service (CloudKit JS, a server of the
/// app's own) act as the signed-in user. StratusKit is signed in with such a token already, so the answer is the
/// one it uses now (renewed by the server past half its life); `.notAuthenticated` without a signed-in user.
open class CKFetchWebAuthTokenOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKFetchWebAuthTokenOperation.apiToken`: the API token the web service will present.
    public var apiToken: String?
    /// Mirrors `CKFetchWebAuthTokenOperation.fetchWebAuthTokenResultBlock`.
    public var fetchWebAuthTokenResultBlock: ((Result<String, any Error>) -> Void)?

    /// Mirrors `CKFetchWebAuthTokenOperation()`.
    public override init() { super.init() }

    /// Mirrors `CKFetchWebAuthTokenOperation(apiToken:)`.
    public convenience init(apiToken: String) {
        self.init()
        self.apiToken = apiToken
    }

    override func execute() async {
        do {
            try checkCancelled()
            guard let apiToken, !apiToken.isEmpty else { throw CKError.make(.invalidArguments,
                    "an API token is required") }
            // Asking who the user is proves the token is still accepted (and renews it when it is old).
            _ = try await container.userRecordID()
            guard let token = container.webAuthToken else { throw CKError.make(.notAuthenticated,
                    "no user is signed in with a web auth token") }
            fetchWebAuthTokenResultBlock?(.success(token))
        } catch {
            fetchWebAuthTokenResultBlock?(.failure(error))
        }
    }
}
