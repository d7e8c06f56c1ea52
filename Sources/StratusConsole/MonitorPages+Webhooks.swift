import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Settings → Webhooks: endpoints of a developer's backend that hear public-database changes. Added with a
/// signing secret shown once; listed with their last delivery and failures; disabled ones can be re-enabled.
/// Every change is audited.
extension MonitorPages {
    func webhooksPage(_ r: ConsoleRequest, created: (Webhook, String)? = nil, error: String? = nil) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let hooks = try scope.env.webhooks.all().map { w in
            WebhooksView.Hook(id: String(w.id), url: w.url, types: w.recordTypes.isEmpty ? "every record type" : w.recordTypes.joined(separator: ", "),
                              enabled: w.enabled, failures: w.failures, lastStatus: w.lastStatus ?? "no delivery yet",
                              lastDelivery: w.lastDeliveryAt.map(ValueDisplay.utcString) ?? "—", created: ValueDisplay.utcString(w.createdAt),
                              enableAction: scope.paths.webhook(w.id, "enable"), disableAction: scope.paths.webhook(w.id, "disable"),
                              removeAction: scope.paths.webhook(w.id, "remove"))
        }
        let view = WebhooksView(webhooks: hooks, hasWebhooks: !hooks.isEmpty, addAction: scope.paths.webhooks(),
                                created: created.map { .init(url: $0.0.url, secret: $0.1) }, error: error, message: req.query("done"))
        let json = ["webhooks": hooks.map { WebhooksView.HookJSON(id: $0.id, url: $0.url, enabled: $0.enabled, failures: $0.failures, lastStatus: $0.lastStatus) }]
        return page(r, tab: .webhooks, "webhooks", title: "Webhooks", view, json: json, status: error == nil ? .ok : .badRequest)
    }

    /// `webhooks.mustache`: the environment's webhooks (a new one's signing secret shown once).
    struct WebhooksView: Encodable {
        struct Hook: Encodable {
            let id, url, types: String
            let enabled: Bool
            let failures: Int
            let lastStatus, lastDelivery, created, enableAction, disableAction, removeAction: String
        }
        struct HookJSON: Encodable {
            let id, url: String
            let enabled: Bool
            let failures: Int
            let lastStatus: String
        }
        struct Created: Encodable { let url, secret: String }
        /// What adding a webhook answers in JSON: its secret, once.
        struct Added: Encodable { let id: Int64; let url, secret: String }
        let webhooks: [Hook]
        let hasWebhooks: Bool
        let addAction: String
        let created: Created?
        let error, message: String?
    }

    func addWebhook(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let f = form(req)
        let url = (f["url"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let types = (f["recordTypes"] ?? "").split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" || $0 == "\r" }).map(String.init)
        do {
            let (hook, secret) = try scope.env.webhooks.addWebhook(url: url, recordTypes: types)
            try audit(s, scope, "add webhook", "#\(hook.id) \(hook.url)")
            if Console.wantsJSON(req) { return Console.jsonAnswer(WebhooksView.Added(id: hook.id, url: hook.url, secret: secret)) }
            return try webhooksPage(r, created: (hook, secret))
        } catch let e as StratusError where e.code == .badRequest {
            return try webhooksPage(r, error: e.reason)
        }
    }

    func changeWebhook(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard let id = Int64(req.parameters["id"] ?? ""), let hook = try scope.env.webhooks.all().first(where: { $0.id == id }) else {
            throw StratusError(.notFound, "There is no such webhook in this environment.")
        }
        let done: String
        switch req.parameters["action"] {
        case "enable":
            try scope.env.webhooks.setWebhookEnabled(id: id, true)
            try audit(s, scope, "enable webhook", "#\(id) \(hook.url)")
            done = "Enabled the webhook to \(hook.url); its pending deliveries resume."
        case "disable":
            try scope.env.webhooks.setWebhookEnabled(id: id, false)
            try audit(s, scope, "disable webhook", "#\(id) \(hook.url)")
            done = "Disabled the webhook to \(hook.url)."
        case "remove":
            try scope.env.webhooks.removeWebhook(id: id)
            try audit(s, scope, "remove webhook", "#\(id) \(hook.url)")
            done = "Removed the webhook to \(hook.url)."
        default:
            throw StratusError(.notFound, "There is no such page.")
        }
        return .redirect(to: scope.paths.webhooks(done: done))
    }
}
