import StratusHTTP

/// The containers: the list, creating one, the audit log, and what acts on a whole container — deploying its
/// schema to Production and deleting it. The container-wide pages carry no environment in their URL; they are
/// drawn as Development's.
struct ContainerPages: ConsolePageGroup {
    let console: Console

    static func register(_ router: inout Router, console c: Console) {
        let g = ContainerPages(console: c)
        let form = 16 * 1024
        router.add(.get, "/console/") { req in try await c.authenticated(req) { s in try g.containersPage(req, s) } }
        router.add(.post, "/console/containers", bodyLimit: form, admit: c.admitSession) { req in try await c.authenticated(req, form: true) { s in try g.createContainer(req, s) } }
        router.add(.get, "/console/audit") { req in try await c.authenticated(req) { s in try g.auditPage(req, s) } }
        router.add(.get, "/console/{container}/deploy") { req in try await g.containerWide(req) { s, scope in try g.deployPage(req, s, scope) } }
        router.add(.post, "/console/{container}/deploy", bodyLimit: 4 * form, admit: c.admitSession) { req in try await g.containerWide(req) { s, scope in try g.deploy(req, s, scope) } }
        router.add(.get, "/console/{container}/delete") { req in try await g.containerWide(req) { s, scope in try g.deleteContainerPage(req, s, scope) } }
        router.add(.post, "/console/{container}/delete", bodyLimit: 4 * form, admit: c.admitSession) { req in
            try await g.containerWide(req) { s, scope in try g.deleteContainer(req, s, scope) }
        }
    }

    /// A container-wide page, scoped as Development.
    func containerWide(_ req: HTTPRequest, _ page: @escaping @Sendable (Console.Session, ConsoleScope) throws -> HTTPResponse) async throws -> HTTPResponse {
        var r = req
        r.parameters["environment"] = "development"
        return try await console.scoped(r, page)
    }
}
