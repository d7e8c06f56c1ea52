import StratusHTTP
import StratusTemplates

/// The HTML of the sign-in and share pages, drawn from `Templates/auth-*.mustache` and `share-*.mustache` (every
/// value escaped by the template), in the console's look.
struct AuthPages: Sendable {
    let library: TemplateLibrary

    /// A sign-in, sign-up or account form (`auth-form`).
    struct Form: Encodable {
        var title, heading, container, environmentName, action, email, button, minimumLength, passwordAutocomplete: String
        var message, notice, cancel: String?
        var signup, account, asksDiscoverable, offersRemember: Bool
        /// Whether the page has its email and password form (a sign-up page where the operator made no accounts
        /// with a password has none).
        var passwordForm = true
        var testUser: Bool
        var links: [Link]
        /// The provider identity that signing in links to the account (`PendingLink`'s token), sent with the form.
        var link: String?
        /// A button per provider that signs in on the web.
        var providers: [Link] = []
        /// The passkey button of this page (sign in, create an account, use one on the account page).
        var passkey: PasskeyButton?
    }

    struct Link: Encodable {
        var href, label: String
        var first: Bool
    }

    /// A provider's cross-site POST back to the callback, sent on once from this origin (where the browser's sign-in
    /// cookie goes with it) by a script file, or by the button without one.
    func resend(action: String, fields: [String: String]) -> HTTPResponse {
        struct Field: Encodable { var name, value: String }
        struct View: Encodable { var title, action: String; var fields: [Field] }
        return page("auth-resend", View(title: "Signing in", action: action,
                                        fields: fields.sorted { $0.key < $1.key }
                                            .map { Field(name: $0.key, value: $0.value) }
                                            + [Field(name: "resent", value: "1")]))
    }

    /// A page of one sentence, with a heading when it has one.
    func message(_ title: String, heading: String? = nil, _ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        struct View: Encodable { var title: String; var heading: String?; var text: String }
        return page("auth-message", View(title: title, heading: heading, text: text), status: status)
    }

    /// A sign-in link that names a destination no API token allows.
    func untrusted(target: String, container: String, environment: String) -> HTTPResponse {
        struct View: Encodable { var title, target, container, environment: String }
        return page("auth-untrusted", View(title: "Refused", target: target, container: container,
                                           environment: environment), status: .forbidden)
    }

    /// What `signin.js` posts to the window that opened the page: the session, or why there is none.
    func handoff(token: String? = nil, errorMessage: String? = nil, origin: String) -> HTTPResponse {
        struct View: Encodable { var title: String; var token, errorMessage: String?; var origin: String }
        return page("auth-handoff", View(title: token != nil ? "Signed in" : "Not signed in", token: token,
                                         errorMessage: errorMessage, origin: origin))
    }

    func form(_ view: Form, status: HTTPStatus = .ok) -> HTTPResponse { page("auth-form", view, status: status) }

    /// An account page's save: whether others can find the user now.
    func saved(state: String, accountPath: String, signInPath: String,
               addPasskey: PasskeyButton? = nil) -> HTTPResponse {
        struct View: Encodable { var title, state, accountPath, signInPath: String; var addPasskey: PasskeyButton? }
        return page("auth-saved", View(title: "Account settings", state: state, accountPath: accountPath,
                                       signInPath: signInPath, addPasskey: addPasskey))
    }

    /// A passkey button (`Public/passkey.js`): what it does, where it asks for the ceremony's options (or the
    /// options themselves, begun already), and where the browser's answer goes.
    struct PasskeyButton: Encodable {
        var kind, label: String
        var optionsURL, optionsJSON: String?
        var finishURL: String
    }

    /// The page a share's URL opens, with who shares what when anyone with the link may see it.
    func shareForm(action: String, preview: (owner: String, type: String, container: String)?, message: String?,
                   status: HTTPStatus = .ok) -> HTTPResponse {
        struct Preview: Encodable { var owner, type, container: String }
        struct View: Encodable { var title, action: String; var preview: Preview?; var message: String? }
        return page("share-form", View(title: "Open a share", action: action,
                                       preview: preview.map { Preview(owner: $0.owner, type: $0.type,
                                                                      container: $0.container) },
                                       message: message), status: status)
    }

    func shareAccepted(owner: String, type: String, container: String, environment: String,
                       zone: String) -> HTTPResponse {
        struct View: Encodable { var title, owner, type, container, environment, zone: String }
        return page("share-accepted", View(title: "Share accepted", owner: owner, type: type, container: container,
                                           environment: environment, zone: zone))
    }

    private func page(_ name: String, _ view: some Encodable, status: HTTPStatus = .ok) -> HTTPResponse {
        let html = library.render(name,
                                  TemplateEncoder.encode(view)) ?? "<!doctype html><title>Stratus</title><p>This page could not be drawn.</p>"
        return HTML.page(html, status: status)
    }
}
