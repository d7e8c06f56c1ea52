import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// How every CloudKit entry point learns who asks for what, in two steps: `target` before a thread is taken (the
/// address's request budget, the route's container and environment), `authorize` on a blocking thread (the
/// environment opened, the credentials checked, the user's request budget, the rules of keys and databases).
extension CloudKitAPI {
    /// Who an entry point serves.
    enum Audience {
        /// Any caller with the container environment's API token (or a server-to-server key), signed in or not.
        case anyCaller
        /// A signed-in user only: others are answered AUTHENTICATION_REQUIRED with the sign-in URL.
        case signedInUser
    }

    /// The container and environment the route names, after the client address's request budget.
    func target(_ req: HTTPRequest) throws -> (ContainerID, ContainerEnvironment) {
        try limits.admit(address: req.clientAddress)
        return (try ContainerID(req.parameters["container"] ?? ""), try ContainerEnvironment(parsing: req.parameters["environment"] ?? ""))
    }

    /// The request's context: opening the environment answers NOT_FOUND for an unknown container (from a cache
    /// after the first time), then the credentials are checked and the user's request budget spent. A key acts as
    /// the developer who created it, on the public database only: it may ask who that is (`users/caller`,
    /// `users/current`; CloudKit JS's `setUpAuth()` does, before anything else) and nothing of other users.
    /// Private and shared databases belong to a signed-in user.
    func authorize(_ req: HTTPRequest, _ container: ContainerID, _ environment: ContainerEnvironment, database: DatabaseScope = .public,
                   body: JSON = .object([:]), operation: CloudKitOperation? = nil, audience: Audience) throws -> CloudKitRequest {
        let opened = try store.environment(container, environment)
        let a = try authenticate(req, container: container, environment: environment, in: opened)
        if let user = a.userRecordName { try limits.admit(user: "\(container.rawValue)/\(user)") }
        if a.serverToServer, let operation, operation.isAboutUsers, operation != .usersCaller, operation != .usersCurrent {
            throw StratusError.authenticationFailed("the server-to-server key verified, but \(operation.rawValue) needs a signed-in user (ckWebAuthToken): a key may ask users/caller and users/current only")
        }
        if a.serverToServer && database != .public {
            throw StratusError.authenticationFailed("server-to-server keys act on the public database only")
        }
        if database != .public || audience == .signedInUser { _ = try requireUser(a, req, container: container, environment: environment) }
        return CloudKitRequest(container: container, environment: environment, database: database, auth: a, body: body, request: req, store: opened)
    }
}
