import StratusHTTP

/// Monitor: the home page, subscriptions, notifications, webhooks, sharing, query shapes, logs, telemetry and faults.
struct MonitorPages: ScopedPageGroup {
    let console: Console

    static func register(_ r: inout ScopedRoutes<MonitorPages>) {
        r.get("/console/{container}/{environment}") { g, req, s, scope in try g.homePage(req, s, scope) }
        r.get("/console/{container}/{environment}/subscriptions") { g, req, s, scope in try g.subscriptionsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/subscriptions/delete") { g, req, s, scope in try g.deleteSubscription(req, s, scope) }
        r.get("/console/{container}/{environment}/notifications") { g, req, s, scope in try g.notificationsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/notifications/test") { g, req, s, scope in try g.sendTestNotification(req, s, scope) }
        r.post("/console/{container}/{environment}/notifications/apns") { g, req, s, scope in try g.setAPNsKey(req, s, scope) }
        r.post("/console/{container}/{environment}/notifications/apns/remove") { g, req, s, scope in try g.removeAPNsKey(req, s, scope) }
        r.get("/console/{container}/{environment}/webhooks") { g, req, s, scope in try g.webhooksPage(req, s, scope) }
        r.get("/console/{container}/{environment}/sharing") { g, req, s, scope in try g.sharingPage(req, s, scope) }
        r.get("/console/{container}/{environment}/query-shapes") { g, req, s, scope in try g.queryShapesPage(req, s, scope) }
        r.post("/console/{container}/{environment}/query-shapes/build") { g, req, s, scope in try g.buildShapeIndex(req, s, scope) }
        r.post("/console/{container}/{environment}/query-shapes/indexes/{name}/{action}") { g, req, s, scope in try g.changeShapeIndex(req, s, scope) }
        r.post("/console/{container}/{environment}/sharing/{guid}/revoke") { g, req, s, scope in try g.revokeShare(req, s, scope) }
        r.post("/console/{container}/{environment}/webhooks") { g, req, s, scope in try g.addWebhook(req, s, scope) }
        r.post("/console/{container}/{environment}/webhooks/{id}/{action}") { g, req, s, scope in try g.changeWebhook(req, s, scope) }
        r.get("/console/{container}/{environment}/logs") { g, req, s, scope in try g.logsPage(req, s, scope) }
        r.get("/console/{container}/{environment}/telemetry") { g, req, s, scope in try g.telemetryPage(req, s, scope) }
        r.get("/console/{container}/{environment}/faults") { g, req, s, scope in try g.faultsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/faults") { g, req, s, scope in try g.addFault(req, s, scope) }
        r.post("/console/{container}/{environment}/faults/{id}/clear") { g, req, s, scope in try g.clearFault(req, s, scope) }
    }
}
