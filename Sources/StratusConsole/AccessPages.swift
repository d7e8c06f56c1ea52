import StratusHTTP

/// Access: the container's users, acting as one, signing them out and purging their data.
struct AccessPages: ScopedPageGroup {
    let console: Console

    static func register(_ r: inout ScopedRoutes<AccessPages>) {
        r.get("/console/{container}/{environment}/users") { g, req, s, scope in try g.usersPage(req, s, scope) }
        r.get("/console/{container}/{environment}/act-as") { g, req, s, scope in try g.actAsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/act-as") { g, req, s, scope in try g.actAs(req, s, scope) }
        r.post("/console/{container}/{environment}/act-as/stop") { g, req, s, scope in try g.stopActing(req, s, scope) }
        r.post("/console/{container}/{environment}/users/{user}/signout") { g, req, s, scope in try g.signUserOut(req, s, scope) }
        r.post("/console/{container}/{environment}/users/{user}/purge") { g, req, s, scope in try g.purgeUserData(req, s, scope) }
    }
}
