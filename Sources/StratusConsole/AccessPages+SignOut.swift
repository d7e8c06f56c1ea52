import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Signing a user out everywhere, unlinking a way they sign in, and deleting their data in Development.
extension AccessPages {
    /// Takes one way of signing in from a user (`way`: `issuer:<iss>`, or `passkeys`), never the last. Audited.
    func unlinkWay(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let name = req.parameters["user"] ?? "", way = form(req)["way"] ?? ""
        guard try store.accounts.user(container: scope.container, userRecordName: name) != nil else {
            throw StratusError(.notFound, "There is no such user in this container.")
        }
        let unlinked: IdentityStore.Unlinked = way.hasPrefix("issuer:") ? .issuer(String(way.dropFirst(7))) : .passkeys
        let refusal: StratusError?
        do {
            try store.identities.unlink(unlinked, user: name, container: scope.container)
            refusal = nil
        } catch {
            guard error.code == .badRequest || error.code == .notFound else { throw error }
            refusal = error
        }
        if let refusal { return .redirect(to: scope.paths.users(done: "Not unlinked: \(refusal.reason).")) }
        try audit(s, scope, "unlink a way to sign in", "\(name) \(way.prefix(200))")
        let what = way.hasPrefix("issuer:") ? "the provider" : "the passkeys"
        return .redirect(to: scope.paths.users(done: "Unlinked \(what) from \(name)."))
    }

    /// Signs a container user out everywhere (both environments): their web auth tokens and web courier tokens stop
    /// working, and their open notification streams end. Audited.
    func signUserOut(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let name = req.parameters["user"] ?? ""
        guard let user = try store.accounts.user(container: scope.container, userRecordName: name) else {
            throw StratusError(.notFound, "There is no such user in this container.")
        }
        let sessions = try store.accounts.signOutEverywhere(container: scope.container,
                                                            userRecordName: user.userRecordName)
        try audit(s, scope, "sign user out everywhere",
                  "\(user.userRecordName) (\(sessions) session\(sessions == 1 ? "" : "s"))")
        return .redirect(to: scope.paths.users(done: "Signed \(user.email) out everywhere: \(sessions) session\(sessions == 1 ? "" : "s") ended."))
    }

    /// Deletes a user's private data in this environment as CloudKit's "delete this app's data" does (see
    /// `EnvironmentStore.purgeUserData`): their apps then meet USER_DELETED_ZONE. Audited.
    func purgeUserData(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let name = req.parameters["user"] ?? ""
        guard let user = try store.accounts.user(container: scope.container, userRecordName: name) else {
            throw StratusError(.notFound, "There is no such user in this container.")
        }
        guard !scope.isProduction else {
            throw StratusError(.accessDenied,
                               "A user's data is deleted by the console in Development only; in Production the user deletes it from their device.")
        }
        let zones = try scope.env.zones.purgeUserData(user.userRecordName)
        try audit(s, scope, "delete user's data", "\(user.userRecordName) (\(zones) zone\(zones == 1 ? "" : "s"))")
        return .redirect(to: scope.paths.users(done: "Deleted \(user.email)'s data in \(scope.environment.rawValue): \(zones) zone\(zones == 1 ? "" : "s") purged."))
    }
}
