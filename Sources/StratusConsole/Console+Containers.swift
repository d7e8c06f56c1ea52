import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// The containers page: the list (record counts from the writer's counters, never COUNT(*)) and creation.
extension Console {
    func containersPage(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let containers = try store.containers().map { c -> [String: Any] in
            let dev = try? store.environment(c.id, .development), prod = try? store.environment(c.id, .production)
            return ["id": c.id.rawValue, "createdISO": Console.iso(c.createdAt), "developmentPath": ConsolePaths.environment(c.id, .development),
                    "productionPath": ConsolePaths.environment(c.id, .production), "deletePath": ConsolePaths.deleteContainer(c.id),
                    "developmentRecords": (try? dev?.recordCount()) ?? 0, "productionRecords": (try? prod?.recordCount()) ?? 0,
                    "developmentTypes": (try? dev?.schema().recordTypes.count) ?? 0, "productionTypes": (try? prod?.schema().recordTypes.count) ?? 0]
        }
        var values: [String: Any] = ["title": "Containers", "containers": containers, "hasContainers": !containers.isEmpty, "createAction": ConsolePaths.containers]
        if let created = req.query("created") { values["message"] = "Created \(created)." }
        if let deleted = req.query("deleted") { values["message"] = "Deleted \(deleted)." }
        if Console.wantsJSON(req) {
            return .json(Console.json(["containers": containers.map { c in
                ["id": c["id"]!, "developmentRecords": c["developmentRecords"]!, "productionRecords": c["productionRecords"]!, "created": c["createdISO"]!]
            }]))
        }
        return render("containers", values, session: s)
    }

    func createContainer(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let raw = (formValue(req, "id") ?? "").trimmingCharacters(in: .whitespaces)
        let id = try ContainerID(raw)
        try store.createContainer(id)
        try store.audit(AuditEntry(at: WallClock.nowMillis(), admin: s.admin.email, action: "create container", container: id.rawValue, environment: nil, detail: ""))
        return .redirect(to: ConsolePaths.home(created: id))
    }

    func auditPage(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let entries = try store.auditLog().map { e -> [String: Any] in
            ["when": Console.iso(e.at), "admin": e.admin, "action": e.action, "container": e.container ?? "", "environment": e.environment ?? "", "detail": e.detail]
        }
        return render("audit", ["title": "Audit log", "entries": entries, "crumbs": [["href": ConsolePaths.home, "label": "Containers"]]], session: s)
    }
}
