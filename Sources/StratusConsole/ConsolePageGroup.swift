import Logging
import StratusHTTP
import StratusModel
import StratusStore

/// A group of the console's pages — sign-in, containers, and inside a container environment monitor, access,
/// schema, settings and data: one type with its routes (`register`, in the console's one route table,
/// `ConsoleRoutes.swift`), its handlers and its views in the group's own files. What every page shares (the
/// session, the scope, drawing a page, forms, the audit) stays the `Console`'s; a group reaches it through the
/// members below, and holds no state of its own.
protocol ConsolePageGroup: Sendable {
    var console: Console { get }
    init(console: Console)
}

/// A page group inside a container environment: its pages are behind the session and the scope.
protocol ScopedPageGroup: ConsolePageGroup {
    /// Adds the group's pages to the console's routes.
    static func register(_ routes: inout ScopedRoutes<Self>)
}

extension ScopedPageGroup {
    /// The group's routes added to the router, each behind the console's session and scope.
    static func add(to router: inout Router, console: Console) {
        var routes = ScopedRoutes<Self>(console: console, router: router)
        register(&routes)
        router = routes.router
    }
}

extension ConsolePageGroup {
    typealias Session = Console.Session

    var store: ServerStore { console.store }
    var blocking: BlockingWork { console.blocking }
    var logger: Logger { console.logger }

    func render(_ template: String, _ view: some Encodable, session: Session?,
                status: HTTPStatus = .ok) -> HTTPResponse {
        console.render(template, view, session: session, status: status)
    }

    func audit(_ s: Session, _ scope: ConsoleScope?, _ action: String, _ detail: String,
               container: ContainerID? = nil) throws {
        try console.audit(s, scope, action, detail, container: container)
    }

    /// A page in a container (see `Console.page`).
    func page(_ r: ConsoleRequest, tab: ConsoleTab, _ template: String, title: String,
              _ view: some Encodable, crumbs: [Crumb] = [], json: (any Encodable)? = nil, status: HTTPStatus = .ok) -> HTTPResponse {
        console.page(r, tab: tab, template, title: title, view, crumbs: crumbs, json: json, status: status)
    }

    func errorPage(_ session: Session?, status: HTTPStatus, heading: String, reason: String) -> HTTPResponse {
        console.errorPage(session, status: status, heading: heading, reason: reason)
    }

    func form(_ req: HTTPRequest) -> [String: String] { console.form(req) }
    func formValue(_ req: HTTPRequest, _ name: String) -> String? { console.formValue(req, name) }
}
