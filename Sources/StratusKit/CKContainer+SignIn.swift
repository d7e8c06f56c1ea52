import Foundation
import StratusJSON
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CKContainer {
    /// Signs a user in through Stratus's sign-in endpoint and returns the container acting for them — for command-line
    /// tools and tests, where CloudKit would use the device's iCloud account. `configuration` names the server, the
    /// environment and an API token; its credentials are replaced by the user's web auth token (`webAuthToken`
    /// afterwards, to keep for `STRATUS_WEB_AUTH_TOKEN`). A wrong password is `.notAuthenticated`; too many attempts
    /// `.requestRateLimited` with `retryAfterSeconds`. Not in CloudKit.
    public static func signIn(identifier: String, configuration: Configuration, email: String, password: String,
                              remember: Bool = false) async throws -> CKContainer {
        var form = ["email": email, "password": password]
        if remember { form["remember"] = "on" }
        return try await authenticate(identifier: identifier, configuration: configuration, mode: "signin", form: form)
    }

    /// Signs in as the container's Development test user (no password), as the sign-in page's "continue as a test
    /// user" does. Not in CloudKit.
    public static func signInAsTestUser(identifier: String, configuration: Configuration) async throws -> CKContainer {
        try await authenticate(identifier: identifier, configuration: configuration, mode: "signin",
                               form: ["testUser": "1"])
    }

    /// Creates an account (the answer is the same whether or not the address already had one, so sign in next).
    /// Not in CloudKit.
    public static func signUp(identifier: String, configuration: Configuration, email: String, password: String,
                              firstName: String = "", lastName: String = "", discoverable: Bool = false) async throws {
        var form = ["email": email, "password": password, "firstName": firstName, "lastName": lastName]
        if discoverable { form["discoverable"] = "on" }
        let services = WebServices(containerIdentifier: identifier, configuration: configuration.withoutUser)
        _ = try await post(services, mode: "signup", form: form)
    }

    /// Signs in with an identity token from Sign in with Apple (or another OpenID provider the container trusts:
    /// `stratus auth provider add`) and returns the container acting for that user, as CloudKit's container acts for
    /// the device's iCloud account: no sign-up, no password. `nonce` is the raw nonce whose lowercase hex SHA-256 the
    /// app gave the provider (`ASAuthorizationAppleIDRequest.nonce`); a nonce signs in once. On a first Sign in with
    /// Apple, pass the name Apple gave the app (it sends it once): it becomes the user's `nameComponents`. The same
    /// provider account is always the same user. Posts `CKAccountChanged`. A refused token is `.notAuthenticated`,
    /// too many refusals `.requestRateLimited`. Keep `webAuthToken` where the platform keeps secrets (the Keychain on
    /// Apple platforms). Not in CloudKit.
    public static func signIn(identifier: String, configuration: Configuration, identityToken: String,
                              provider: String, nonce: String, givenName: String? = nil,
                              familyName: String? = nil) async throws -> CKContainer {
        let services = WebServices(containerIdentifier: identifier, configuration: configuration.withoutUser)
        if let problem = services.configuration.problem { throw CKError.make(.badContainer, problem) }
        var body: [String: JSON] = ["provider": .string(provider), "idToken": .string(identityToken),
                                    "nonce": .string(nonce)]
        if let givenName { body["givenName"] = .string(givenName) }
        if let familyName { body["familyName"] = .string(familyName) }
        let path = "/auth/1/\(identifier)/\(configuration.environment.rawValue)/token"
        var req = URLRequest(url: try services.url(path: path))
        req.httpMethod = "POST"
        req.timeoutInterval = services.configuration.timeoutIntervalForRequest
        req.setValue("application/json", forHTTPHeaderField: "Content-Type")
        req.httpBody = Data(JSON.object(body).serialized.utf8)
        let (data, http) = try await services.perform(req)
        return try signedIn(identifier: identifier, configuration: configuration, answer: try services.read(data, http))
    }

    /// `signIn(identifier:configuration:identityToken:provider:nonce:)` with the token as Apple's credential holds
    /// it (`ASAuthorizationAppleIDCredential.identityToken`, UTF-8 bytes). Not in CloudKit.
    public static func signIn(identifier: String, configuration: Configuration, identityToken: Data,
                              provider: String, nonce: String, givenName: String? = nil,
                              familyName: String? = nil) async throws -> CKContainer {
        try await signIn(identifier: identifier, configuration: configuration,
                         identityToken: String(decoding: identityToken, as: UTF8.self), provider: provider,
                         nonce: nonce, givenName: givenName, familyName: familyName)
    }

    /// Signs the container's user out: its web auth token, and every token it rotated to, stop working on the
    /// server at once, and `CKAccountChanged` is posted (a sync engine on it hears `.signOut`). What the app keeps
    /// of the user is the app's to delete. Not in CloudKit, where the device's account signs out.
    public func signOut() async throws {
        guard let token = services.currentWebAuthToken else { return }
        let environment = services.configuration.environment.rawValue
        var req = URLRequest(url: try services.url(path: "/auth/1/\(services.containerIdentifier)/\(environment)/signout"))
        req.httpMethod = "POST"
        req.timeoutInterval = services.configuration.timeoutIntervalForRequest
        req.setValue("application/json", forHTTPHeaderField: "Content-Type")
        req.httpBody = Data(JSON.object(["ckWebAuthToken": .string(token)]).serialized.utf8)
        let (data, http) = try await services.perform(req)
        _ = try services.read(data, http)
        services.signedOut()
    }

    private static func signedIn(identifier: String, configuration: Configuration,
                                 answer j: WireObject) throws -> CKContainer {
        guard let token = j["ckWebAuthToken"]?.string else { throw CKError.make(.serverResponseLost,
                "the sign-in answer held no token") }
        var signedIn = configuration
        signedIn.credentials = .webAuthToken(token)
        NotificationCenter.default.post(name: .CKAccountChanged, object: nil)
        return CKContainer(identifier: identifier, configuration: signedIn)
    }

    private static func authenticate(identifier: String, configuration: Configuration, mode: String,
                                     form: [String: String]) async throws -> CKContainer {
        let services = WebServices(containerIdentifier: identifier, configuration: configuration.withoutUser)
        return try signedIn(identifier: identifier, configuration: configuration,
                            answer: try await post(services, mode: mode, form: form))
    }

    private static func post(_ services: WebServices, mode: String, form: [String: String]) async throws -> WireObject {
        if let problem = services.configuration.problem { throw CKError.make(.badContainer, problem) }
        var req = URLRequest(url: try services.url(path: "/auth/1/\(services.containerIdentifier)/\(services.configuration.environment.rawValue)/\(mode)"))
        req.httpMethod = "POST"
        req.timeoutInterval = services.configuration.timeoutIntervalForRequest
        req.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        req.setValue("application/json", forHTTPHeaderField: "Accept")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        req.httpBody = Data(form.map { k,
                            v in "\(k)=\(v.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&").utf8)
        let (data, http) = try await services.perform(req)
        return try services.read(data, http)
    }
}

extension CKContainer.Configuration {
    /// The same server and API token, acting for no one.
    var withoutUser: CKContainer.Configuration {
        var c = self
        c.credentials = .none
        return c
    }
}
