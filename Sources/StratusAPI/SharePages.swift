import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// `/share/{shortGUID}`: the page a share's URL opens. The visitor signs in with their account of the container and
/// accepts; the page then confirms where the shared records are. Until then it shows the owner and what is shared
/// only for shares anyone with the link may join; to anyone else a share is "not shared with you", whatever the GUID.
struct SharePages: Sendable {
    let store: RecordStore
    let blocking: BlockingWork
    let throttle: SignInThrottle

    func register(_ router: inout Router) {
        let pages = self
        router.add(.get, "/share/{guid}") { req in await pages.handle(req) }
        router.add(.post, "/share/{guid}", bodyLimit: 16 * 1024) { req in await pages.handle(req) }
    }

    static let notShared = SignInPages.layout("Not shared with you", """
        <h1>Not shared with you</h1><p>This link does not open anything for you. Ask its owner to invite you.</p>
        """)

    func handle(_ req: HTTPRequest) async -> HTTPResponse {
        let guid = req.parameters["guid"] ?? ""
        let store = self.store
        guard let env = await (try? blocking.run { store.locateShare(guid) }) ?? nil else {
            return HTML.page(Self.notShared, status: .notFound)
        }
        let container = env.container
        // What anyone may see before signing in: only a share open to everyone with the link shows who shares what.
        let preview: (owner: String, type: String)? = await (try? blocking.run { () throws -> (String, String)? in
            let (share, _) = try env.resolveShare(guid, user: nil)
            return (try Self.ownerName(share, store, container), try env.rootRecordType(of: share) ?? "zone")
        }) ?? nil
        if req.method == .get { return HTML.page(form(guid, env, preview, message: nil)) }

        guard SameOrigin.allows(req) else { return HTML.page(SignInPages.layout("Refused", "<p>This form can only be sent from its own page.</p>"), status: .forbidden) }
        let form = Dictionary(HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self)).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let account = "user:\(container.rawValue):\(email.lowercased())"
        if case .wait(let seconds) = throttle.check(account: account, address: req.clientAddress) {
            var r = HTML.page(self.form(guid, env, preview, message: "Too many failed attempts. Wait \(seconds) seconds and try again."), status: .tooManyRequests)
            r.headers["retry-after"] = String(seconds)
            return r
        }
        do {
            let (share, owner, type): (Share, String, String) = try await throttle.passwords.run(blocking) {
                guard let user = try store.authenticateUser(container: container, email: email, password: form["password"] ?? "") else {
                    throw StratusError(.authenticationFailed, "That email and password do not match an account.")
                }
                let share = try env.acceptShare(guid, user: user.userRecordName)
                return (share, try Self.ownerName(share, store, container), try env.rootRecordType(of: share) ?? "zone")
            }
            throttle.succeeded(account: account)
            return HTML.page(SignInPages.layout("Share accepted", """
                <h1 id="accepted">You joined \(HTML.escape(owner))'s \(HTML.escape(type))</h1>
                <p>It is in your shared database in <code>\(HTML.escape(container.rawValue))</code> (\(env.environment.rawValue)), zone
                <code>\(HTML.escape(share.zoneID.zoneName))</code>. Your apps see it the next time they sync.</p>
                """))
        } catch {
            let e = StratusError.wrapping(error)
            if e.code == .authenticationFailed {
                throttle.failed(account: account, address: req.clientAddress)
                return HTML.page(self.form(guid, env, preview, message: e.reason), status: .code(401))
            }
            if e.code == .accessDenied { return HTML.page(Self.notShared, status: .forbidden) }
            return HTML.page(self.form(guid, env, preview, message: ErrorEnvelope.publicReason(e, uuid: UUID().uuidString.lowercased())), status: .code(e.code.httpStatus))
        }
    }

    static func ownerName(_ share: Share, _ store: RecordStore, _ container: ContainerID) throws -> String {
        guard let o = share.owner?.userRecordName else { return "someone" }
        let u = try store.user(container: container, userRecordName: o)
        let name = [u?.firstName ?? "", u?.lastName ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? "someone" : name
    }

    private func form(_ guid: String, _ env: EnvironmentStore, _ preview: (owner: String, type: String)?, message: String?) -> String {
        let what = preview.map { "<p id=\"preview\">\(HTML.escape($0.owner)) shares a \(HTML.escape($0.type)) with anyone who has this link.</p>" } ?? ""
        let note = message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? ""
        return SignInPages.layout("Open a share", """
            <h1>Open a shared item</h1>\(what)
            <p>Sign in with your \(HTML.escape(env.container.rawValue)) account to accept it.</p>\(note)
            <form method="post" action="/share/\(HTML.escape(guid))">
            <label>Email <input name="email" type="email" autocomplete="username" required></label>
            <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
            <button type="submit" id="accept">Sign in and accept</button>
            </form>
            """)
    }
}
