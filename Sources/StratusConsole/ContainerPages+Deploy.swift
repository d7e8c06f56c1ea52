import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Deploying Development's schema to Production, resetting Development, deleting a container: each shows what
/// it will do and asks for a deliberate confirmation.
extension ContainerPages {
    func deployPage(_ r: ConsoleRequest, error: String? = nil) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let plan = try store.lifecycle.deployPlan(scope.container)
        let history = try store.environment(scope.container, .production).schema.deployments().map { d in
            DeployView.Deployment(when: ValueDisplay.utcString(d.deployedAt), by: d.deployedBy, changes: d.changes)
        }
        // What the app does in Development that Production would refuse (`stratus schema check`).
        let problems = try store.lifecycle.schemaCheck(container: scope.container).map(\.message)
        let view = DeployView(changes: plan.changes.map(\.description), refusals: plan.refusals,
                              hasChanges: !plan.changes.isEmpty,
                              hasRefusals: !plan.refusals.isEmpty, canDeploy: !plan.changes.isEmpty && plan.refusals.isEmpty,
                              history: history, hasHistory: !history.isEmpty, action: ConsolePaths.deploy(scope.container),
                              planFingerprint: ContainerPages.fingerprint(plan), checkProblems: problems, hasCheckProblems: !problems.isEmpty,
                              error: error, message: req.query("done"))
        let json = DeployView.JSON(changes: view.changes, refusals: plan.refusals, check: problems, history: history)
        return page(r, tab: .deploy, "deploy", title: "Deploy to Production", view, json: json,
                    status: error == nil ? .ok : .conflict)
    }

    /// `deploy.mustache`: the plan, what Production would refuse, and the history.
    struct DeployView: Encodable {
        struct Deployment: Encodable { let when, by: String; let changes: [String] }
        struct JSON: Encodable { let changes, refusals, check: [String]; let history: [Deployment] }
        let changes, refusals: [String]
        let hasChanges, hasRefusals, canDeploy: Bool
        let history: [Deployment]
        let hasHistory: Bool
        let action, planFingerprint: String
        let checkProblems: [String]
        let hasCheckProblems: Bool
        let error, message: String?
    }

    func deploy(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let plan = try store.lifecycle.deployPlan(scope.container)
        // The admin confirmed the plan they saw; if Development changed since, show the new plan instead.
        guard formValue(req, "plan") == ContainerPages.fingerprint(plan) else {
            return try deployPage(r,
                                  error: "Development's schema changed since you opened this page. Review the changes again.")
        }
        guard plan.refusals.isEmpty else { return try deployPage(r, error: "This deploy is refused; see why below.") }
        let diff = try store.lifecycle.deploy(scope.container, by: s.admin.email)
        try audit(s, nil, "deploy", diff.changes.map(\.description).joined(separator: "; "), container: scope.container)
        return .redirect(to: ConsolePaths.deploy(scope.container,
                                                 done: "Deployed \(diff.changes.count) changes to Production."))
    }

    static func fingerprint(_ plan: SchemaDiff) -> String {
        var h = Hasher()
        // Hasher is seeded per process: fine for a form that lives as long as the page.
        for c in plan.changes { h.combine(c.description) }
        return String(UInt64(bitPattern: Int64(h.finalize())), radix: 16)
    }

    func deleteContainerPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let scope = r.scope
        let dev = try scope.env.records.recordCount(), prod = try store.environment(scope.container,
                .production).records.recordCount()
        return page(r, tab: .none, "confirm", title: "Delete container", ConfirmView(
            heading: "Delete \(scope.container.rawValue)?",
            warning: "This deletes the container with both environments: \(dev) Development and \(prod) Production records, its schema, tokens, keys and users. It cannot be undone.",
            action: ConsolePaths.deleteContainer(scope.container), confirmLabel: "Type the container's identifier to confirm",
            expected: scope.container.rawValue, button: "Delete container", cancelHref: ConsolePaths.home))
    }

    func deleteContainer(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard formValue(req, "confirm") == scope.container.rawValue else {
            throw StratusError.badRequest("The identifier you typed does not match the container's; nothing was deleted.")
        }
        try store.deleteContainer(scope.container)
        try audit(s, nil, "delete container", "", container: scope.container)
        console.containersChanged()
        return .redirect(to: ConsolePaths.home(deleted: scope.container))
    }
}
