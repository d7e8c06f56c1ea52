import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Settings → Tokens & Keys: API tokens (the secret shown once, at creation) and server-to-server keys.
extension SettingsPages {
    func tokensPage(_ r: ConsoleRequest, created: String? = nil, createdName: String? = nil,
                    error: String? = nil, newKey: ServerKey? = nil) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let tokens = try store.credentials.apiTokens(container: scope.container,
                                                     environment: scope.environment).map { t in
            TokensView.Token(id: String(t.id), name: t.name,
                             origins: t.allowedOrigins.isEmpty ? "none (servers only)" : t.allowedOrigins.joined(separator: ", "),
                             created: ValueDisplay.utcString(t.createdAt), revoked: t.revoked, revokeAction: scope.paths.revokeToken(t.id))
        }
        let keys = try store.credentials.serverKeys(container: scope.container,
                                                    environment: scope.environment).map { k in
            TokensView.Key(keyID: k.keyID, notes: k.notes, user: k.userRecordName,
                           created: ValueDisplay.utcString(k.createdAt), revoked: k.revoked,
                           revokeAction: scope.paths.revokeKey(k.keyID))
        }
        let view = TokensView(tokens: tokens, keys: keys, hasTokens: !tokens.isEmpty, hasKeys: !keys.isEmpty,
                              newToken: created.map { .init(secret: $0,
                                                            name: createdName ?? "") }, newKey: newKey.map { .init(keyID: $0.keyID) },
                              error: error, message: req.query("done"))
        let json = TokensView.JSON(tokens: tokens.map { .init(id: $0.id, name: $0.name, revoked: $0.revoked) },
                                   keys: keys.map { .init(keyID: $0.keyID, revoked: $0.revoked) })
        return page(r, tab: .tokens, "tokens", title: "Tokens & keys", view, json: json,
                    status: error == nil ? .ok : .badRequest)
    }

    /// `tokens.mustache`: API tokens and server-to-server keys (a new token's secret shown once).
    struct TokensView: Encodable {
        struct Token: Encodable { let id, name, origins, created: String; let revoked: Bool; let revokeAction: String }
        struct Key: Encodable { let keyID, notes, user, created: String; let revoked: Bool; let revokeAction: String }
        struct NewToken: Encodable { let secret, name: String }
        /// What creating a token answers in JSON: its secret, once.
        struct Created: Encodable { let id: Int64; let name, ckAPIToken: String }
        struct NewKey: Encodable { let keyID: String }
        struct JSON: Encodable {
            struct Token: Encodable { let id, name: String; let revoked: Bool }
            struct Key: Encodable { let keyID: String; let revoked: Bool }
            let tokens: [Token]
            let keys: [Key]
        }
        let tokens: [Token]
        let keys: [Key]
        let hasTokens, hasKeys: Bool
        let newToken: NewToken?
        let newKey: NewKey?
        let error, message: String?
    }

    func createToken(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let f = form(req)
        let name = f["name"] ?? ""
        let origins = (f["origins"] ?? "").split(whereSeparator: { $0 == "\n" || $0 == "," || $0 == " " || $0 == "\r" })
            .map(String.init).filter { !$0.isEmpty }
        do {
            let (token, secret) = try store.credentials.createAPIToken(container: scope.container,
                                                                       environment: scope.environment, name: name,
                    allowedOrigins: origins)
            try audit(s, scope, "create API token", "\(token.name) (#\(token.id))")
            if Console.wantsJSON(req) { return Console.jsonAnswer(TokensView.Created(id: token.id, name: token.name,
                    ckAPIToken: secret)) }
            return try tokensPage(r, created: secret, createdName: token.name)
        } catch let error as StratusError where error.code == .badRequest {
            return try tokensPage(r, error: error.reason)
        }
    }

    func revokeToken(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard let id = Int64(req.parameters["id"] ?? "") else { throw StratusError(.notFound,
                "There is no such token.") }
        guard try store.credentials.apiTokens(container: scope.container,
                                              environment: scope.environment).contains(where: { $0.id == id }) else {
            throw StratusError(.notFound, "There is no such token in this environment.")
        }
        try store.credentials.revokeAPIToken(id: id, container: scope.container)
        try audit(s, scope, "revoke API token", "#\(id)")
        return .redirect(to: scope.paths.tokens(done: "Revoked token #\(id)."))
    }

    func addKey(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let f = form(req)
        do {
            let key = try store.credentials.addServerKey(container: scope.container, environment: scope.environment,
                                                         publicKeyPEM: f["pem"] ?? "", notes: f["notes"] ?? "")
            try audit(s, scope, "add server key", key.keyID)
            if Console.wantsJSON(req) { return Console.jsonAnswer(["keyID": key.keyID]) }
            return try tokensPage(r, newKey: key)
        } catch let error as StratusError where error.code == .badRequest || error.code == .exists {
            return try tokensPage(r, error: error.reason)
        }
    }

    func revokeKey(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let id = req.parameters["id"] ?? ""
        guard try store.credentials.serverKeys(container: scope.container,
                                               environment: scope.environment).contains(where: { $0.keyID == id.lowercased() }) else {
            throw StratusError(.notFound, "There is no such key in this environment.")
        }
        try store.credentials.revokeServerKey(id: id, container: scope.container)
        try audit(s, scope, "revoke server key", id)
        return .redirect(to: scope.paths.tokens(done: "Revoked key \(id.prefix(12))…."))
    }
}
