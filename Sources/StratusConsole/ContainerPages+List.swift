import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// The containers page: the list (record counts from the writer's counters, never COUNT(*)) and creation.
extension ContainerPages {
    func containersPage(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        // Only the containers the administrator holds a role in; making one needs a role over every container.
        let containers = try store.containers().filter { s.roles.role(in: $0.id) != nil }.map { c in
            let dev = try? store.environment(c.id, .development), prod = try? store.environment(c.id, .production)
            return ContainersView.Container(id: c.id.rawValue, createdISO: Console.iso(c.createdAt),
                                            developmentPath: ConsolePaths.environment(c.id, .development),
                                            productionPath: ConsolePaths.environment(c.id,
                                                    .production), deletePath: ConsolePaths.deleteContainer(c.id),
                                            developmentRecords: (try? dev?.records.recordCount()) ?? 0, productionRecords: (try? prod?.records.recordCount()) ?? 0,
                                            developmentTypes: (try? dev?.schema.current().recordTypes.count) ?? 0, productionTypes: (try? prod?.schema.current().recordTypes.count) ?? 0)
        }
        if Console.wantsJSON(req) {
            return Console.jsonAnswer(["containers": containers.map {
                ContainersView.ContainerJSON(id: $0.id, developmentRecords: $0.developmentRecords,
                                             productionRecords: $0.productionRecords, created: $0.createdISO)
            }])
        }
        let message = req.query("deleted").map { "Deleted \($0)." } ?? req.query("created").map { "Created \($0)." }
        return render("containers", ContainersView(title: "Containers", containers: containers,
                                                   hasContainers: !containers.isEmpty,
                                                   createAction: s.roles.allows(.serverWide, in: nil)
                                                    ? ConsolePaths.containers : nil, message: message), session: s)
    }

    /// `containers.mustache`.
    struct ContainersView: Encodable {
        struct Container: Encodable {
            let id, createdISO, developmentPath, productionPath, deletePath: String
            let developmentRecords, productionRecords, developmentTypes, productionTypes: Int
        }
        struct ContainerJSON: Encodable { let id: String; let developmentRecords, productionRecords: Int; let created: String }
        let title: String
        let containers: [Container]
        let hasContainers: Bool
        let createAction: String?
        let message: String?
    }

    func createContainer(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let raw = (formValue(req, "id") ?? "").trimmingCharacters(in: .whitespaces)
        let id = try ContainerID(raw)
        try store.createContainer(id)
        try store.admins.audit(AuditEntry(at: WallClock.nowMillis(), admin: s.admin.email, action: "create container",
                                          container: id.rawValue, environment: nil, detail: ""))
        console.containersChanged()
        return .redirect(to: ConsolePaths.home(created: id))
    }

    func auditPage(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let entries = try store.admins.auditLog().map { e in
            AuditView.Entry(when: Console.iso(e.at), admin: e.admin, action: e.action, container: e.container ?? "",
                            environment: e.environment ?? "", detail: e.detail)
        }
        return render("audit", AuditView(title: "Audit log", entries: entries, crumbs: [Crumb(href: ConsolePaths.home,
                label: "Containers")]), session: s)
    }

    /// `audit.mustache`.
    struct AuditView: Encodable {
        struct Entry: Encodable { let when, admin, action, container, environment, detail: String }
        let title: String
        let entries: [Entry]
        let crumbs: [Crumb]
    }
}
