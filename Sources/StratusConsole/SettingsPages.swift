import StratusHTTP

/// Settings: API tokens and server-to-server keys.
struct SettingsPages: ScopedPageGroup {
    let console: Console

    static func register(_ r: inout ScopedRoutes<SettingsPages>) {
        r.get("/console/{container}/{environment}/tokens") { g, req, s, scope in try g.tokensPage(req, s, scope) }
        r.post("/console/{container}/{environment}/tokens") { g, req, s, scope in try g.createToken(req, s, scope) }
        r.post("/console/{container}/{environment}/tokens/{id}/revoke") { g, req, s, scope in try g.revokeToken(req, s, scope) }
        r.post("/console/{container}/{environment}/keys") { g, req, s, scope in try g.addKey(req, s, scope) }
        r.post("/console/{container}/{environment}/keys/{id}/revoke") { g, req, s, scope in try g.revokeKey(req, s, scope) }
    }
}
