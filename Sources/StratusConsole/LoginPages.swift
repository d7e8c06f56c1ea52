import StratusHTTP

/// Outside any container: signing in and out, the first administrator's setup, and the theme.
struct LoginPages: ConsolePageGroup {
    let console: Console

    static func register(_ router: inout Router, console c: Console) {
        let g = LoginPages(console: c)
        router.add(.get, "/console/login") { req in await g.loginPage(req) }
        router.add(.post, "/console/login", bodyLimit: 16 * 1024) { req in await g.login(req) }
        router.add(.post, "/console/logout", bodyLimit: 16 * 1024) { req in await g.logout(req) }
        router.add(.get, "/console/setup") { req in await g.setupPage(req) }
        router.add(.post, "/console/setup", bodyLimit: 16 * 1024) { req in await g.setup(req) }
        router.add(.post, "/console/theme", bodyLimit: 16 * 1024, admit: c.admitSession) { req in try await c.authenticated(req, form: true) { s in try g.setTheme(req, s) } }
    }
}
