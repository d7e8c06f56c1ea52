import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// `/share/{shortGUID}`: the page a share's URL opens. The visitor signs in with their account of the container and
/// accepts; the page then confirms where the shared records are. Until then it shows the owner and what is shared
/// only for shares anyone with the link may join. Every other link — a share not for this visitor, a forged one, a
/// wrong password — gets the same answers: the same sign-in page before, the same refusal after (404), each after a
/// password check's time, so a link tells a stranger nothing, not even that it exists.
struct SharePages: Sendable {
    let store: ServerStore
    let blocking: BlockingWork
    let throttle: SignInThrottle
    let html: AuthPages

    func register(_ router: inout Router) {
        let pages = self
        router.add(.get, HandedOutPaths.shareRoute) { req in try await pages.handle(req) }
        router.add(.post, HandedOutPaths.shareRoute, bodyLimit: 16 * 1024) { req in try await pages.handle(req) }
    }

    /// The one refusal every link gets after a sign-in, shared with this visitor or not.
    static let notShared = "Either this link is not shared with you, or that email and password do not match an account. Ask its owner to invite you, or try again."

    func handle(_ req: HTTPRequest) async throws -> HTTPResponse {
        let guid = req.parameters["guid"] ?? ""
        let store = self.store
        let env = await (try? blocking.run { store.locateShare(guid) }) ?? nil
        // What anyone may see before signing in: only a share open to everyone with the link shows who shares what.
        let preview: (owner: String, type: String, container: ContainerID)? = await (try? blocking.run { () throws -> (String, String, ContainerID)? in
            guard let env else { return nil }
            let (share, _) = try env.sharing.resolveShare(guid, user: nil)
            return (try Self.ownerName(share, store, env.container), try env.sharing.rootRecordType(of: share) ?? "zone", env.container)
        }) ?? nil
        if req.method == .get { return form(guid, preview, message: nil) }

        guard SameOrigin.allows(req) else { return html.message("Refused", "This form can only be sent from its own page.", status: .forbidden) }
        let form = Dictionary(HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self)).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = form["password"] ?? ""
        let account = "user:\(env?.container.rawValue ?? "?"):\(email.lowercased())"
        let outcome = await throttle.attempt(account: account, address: req.clientAddress, countsAsFailure: { error in
            // A wrong password, or a link that names no share at all, is a guess; a good account not invited is not.
            (error as? StratusError)?.code == .authenticationFailed || env == nil
        }) { () throws -> (Share, String, String) in
            guard let env else {
                AccountStore.spendPasswordCheck(password)
                throw StratusError(.accessDenied, "not shared")
            }
            guard let user = try store.accounts.authenticateUser(container: env.container, email: email, password: password) else {
                throw StratusError(.authenticationFailed, "That email and password do not match an account.")
            }
            let share = try env.sharing.acceptShare(guid, user: user.userRecordName)
            return (share, try Self.ownerName(share, store, env.container), try env.sharing.rootRecordType(of: share) ?? "zone")
        }
        switch outcome {
        case .succeeded(let (share, owner, type)):
            let container = env?.container.rawValue ?? ""
            return html.shareAccepted(owner: owner, type: type, container: container, environment: env?.environment.rawValue ?? "", zone: share.zoneID.zoneName)
        case .wait(let seconds):
            var r = self.form(guid, preview, message: "Too many failed attempts. Wait \(seconds) seconds and try again.", status: .tooManyRequests)
            r.headers["retry-after"] = String(seconds)
            return r
        case .busy:
            var r = self.form(guid, preview, message: "The server is busy signing people in. Try again in a few seconds.", status: .serviceUnavailable)
            r.headers["retry-after"] = "5"
            return r
        case .refused(let error):
            // Not shared, or not this account: one page for both. Anything else is the share group's owner's to answer.
            let e = StratusError.wrapping(error)
            guard e.code == .authenticationFailed || e.code == .accessDenied else { throw error }
            return html.message("Not shared with you", heading: "Not shared with you", Self.notShared, status: .notFound)
        }
    }

    static func ownerName(_ share: Share, _ store: ServerStore, _ container: ContainerID) throws -> String {
        guard let o = share.owner?.userRecordName else { return "someone" }
        let u = try store.accounts.user(container: container, userRecordName: o)
        let name = [u?.firstName ?? "", u?.lastName ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? "someone" : name
    }

    private func form(_ guid: String, _ preview: (owner: String, type: String, container: ContainerID)?, message: String?, status: HTTPStatus = .ok) -> HTTPResponse {
        html.shareForm(action: HandedOutPaths.share(guid), preview: preview.map { ($0.owner, $0.type, $0.container.rawValue) }, message: message, status: status)
    }
}

extension CloudKitAPI {
    /// The share and sign-in pages' error owner: a page in their look, never a stack trace (an internal error's
    /// detail goes to the log under the uuid the page quotes).
    public var pageErrors: RouteGroup.Errors {
        let html = self.html
        return { error, path in
        let status: HTTPStatus, reason: String
        switch error {
        case let e as HTTPError: (status, reason) = (e.status, e.message)
        default:
            let e = error as? StratusError ?? StratusError(.internalError, "\(error)")
            (status, reason) = (.code(e.code.httpStatus), ErrorEnvelope.publicReason(e, uuid: UUID().uuidString.lowercased(), path: path))
        }
        return html.message("Not done", heading: "Not done", reason, status: status)
        }
    }
}
