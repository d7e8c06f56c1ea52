import StratusHTTP

/// The console's URL map inside containers (stable: tests and bookmarks rely on it). Fixed words come before
/// the `{environment}` captures so that `/console/C/deploy` is the deploy page, not an environment.
extension Console {
    func registerContainerPages(_ router: inout Router) {
        let c = self
        let form = 64 * 1024
        // Container-wide pages (the scope's environment is Development for their header).
        router.add(.get, "/console/{container}/deploy") { req in try await c.containerPage(req) { s, scope in try c.deployPage(req, s, scope) } }
        router.add(.post, "/console/{container}/deploy", bodyLimit: form, admit: c.admitSession) { req in try await c.containerPage(req) { s, scope in try c.deploy(req, s, scope) } }
        router.add(.get, "/console/{container}/delete") { req in try await c.containerPage(req) { s, scope in try c.deleteContainerPage(req, s, scope) } }
        router.add(.post, "/console/{container}/delete", bodyLimit: form, admit: c.admitSession) { req in try await c.containerPage(req) { s, scope in try c.deleteContainer(req, s, scope) } }
        var pages = ScopedRoutes(console: c, router: router)
        registerMonitorPages(&pages)
        registerAccessPages(&pages)
        registerSchemaPages(&pages)
        registerSettingsPages(&pages)
        registerDataPages(&pages)
        router = pages.router
    }

    /// Monitor: the home page, subscriptions, notifications, webhooks, sharing, query shapes, logs, telemetry and faults.
    private func registerMonitorPages(_ r: inout ScopedRoutes) {
        r.get("/console/{container}/{environment}") { c, req, s, scope in try c.homePage(req, s, scope) }
        r.get("/console/{container}/{environment}/subscriptions") { c, req, s, scope in try c.subscriptionsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/subscriptions/delete") { c, req, s, scope in try c.deleteSubscription(req, s, scope) }
        r.get("/console/{container}/{environment}/notifications") { c, req, s, scope in try c.notificationsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/notifications/test") { c, req, s, scope in try c.sendTestNotification(req, s, scope) }
        r.post("/console/{container}/{environment}/notifications/apns") { c, req, s, scope in try c.setAPNsKey(req, s, scope) }
        r.post("/console/{container}/{environment}/notifications/apns/remove") { c, req, s, scope in try c.removeAPNsKey(req, s, scope) }
        r.get("/console/{container}/{environment}/webhooks") { c, req, s, scope in try c.webhooksPage(req, s, scope) }
        r.get("/console/{container}/{environment}/sharing") { c, req, s, scope in try c.sharingPage(req, s, scope) }
        r.get("/console/{container}/{environment}/query-shapes") { c, req, s, scope in try c.queryShapesPage(req, s, scope) }
        r.post("/console/{container}/{environment}/query-shapes/build") { c, req, s, scope in try c.buildShapeIndex(req, s, scope) }
        r.post("/console/{container}/{environment}/query-shapes/indexes/{name}/{action}") { c, req, s, scope in try c.changeShapeIndex(req, s, scope) }
        r.post("/console/{container}/{environment}/sharing/{guid}/revoke") { c, req, s, scope in try c.revokeShare(req, s, scope) }
        r.post("/console/{container}/{environment}/webhooks") { c, req, s, scope in try c.addWebhook(req, s, scope) }
        r.post("/console/{container}/{environment}/webhooks/{id}/{action}") { c, req, s, scope in try c.changeWebhook(req, s, scope) }
        r.get("/console/{container}/{environment}/logs") { c, req, s, scope in try c.logsPage(req, s, scope) }
        r.get("/console/{container}/{environment}/telemetry") { c, req, s, scope in try c.telemetryPage(req, s, scope) }
        r.get("/console/{container}/{environment}/faults") { c, req, s, scope in try c.faultsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/faults") { c, req, s, scope in try c.addFault(req, s, scope) }
        r.post("/console/{container}/{environment}/faults/{id}/clear") { c, req, s, scope in try c.clearFault(req, s, scope) }
    }

    /// Access: the container's users, acting as one, signing them out and purging their data.
    private func registerAccessPages(_ r: inout ScopedRoutes) {
        r.get("/console/{container}/{environment}/users") { c, req, s, scope in try c.usersPage(req, s, scope) }
        r.get("/console/{container}/{environment}/act-as") { c, req, s, scope in try c.actAsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/act-as") { c, req, s, scope in try c.actAs(req, s, scope) }
        r.post("/console/{container}/{environment}/act-as/stop") { c, req, s, scope in try c.stopActing(req, s, scope) }
        r.post("/console/{container}/{environment}/users/{user}/signout") { c, req, s, scope in try c.signUserOut(req, s, scope) }
        r.post("/console/{container}/{environment}/users/{user}/purge") { c, req, s, scope in try c.purgeUserData(req, s, scope) }
    }

    /// Schema: record types, fields, indexes, security roles, and resetting Development.
    private func registerSchemaPages(_ r: inout ScopedRoutes) {
        r.get("/console/{container}/{environment}/reset") { c, req, s, scope in try c.resetPage(req, s, scope) }
        r.post("/console/{container}/{environment}/reset") { c, req, s, scope in try c.reset(req, s, scope) }
        r.get("/console/{container}/{environment}/schema") { c, req, s, scope in try c.schemaPage(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/types") { c, req, s, scope in try c.addRecordType(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/import", limit: 4 << 20) { c, req, s, scope in try c.importSchema(req, s, scope) }
        r.get("/console/{container}/{environment}/schema/{recordType}") { c, req, s, scope in try c.recordTypePage(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/{recordType}/fields") { c, req, s, scope in try c.addField(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/{recordType}/indexes") { c, req, s, scope in try c.saveIndexes(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/{recordType}/delete") { c, req, s, scope in try c.deleteRecordType(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/{recordType}/fields/{field}/delete") { c, req, s, scope in try c.deleteField(req, s, scope) }
        r.get("/console/{container}/{environment}/roles") { c, req, s, scope in try c.rolesPage(req, s, scope) }
        r.post("/console/{container}/{environment}/roles") { c, req, s, scope in try c.saveGrants(req, s, scope) }
        r.post("/console/{container}/{environment}/roles/create") { c, req, s, scope in try c.createRole(req, s, scope) }
        r.post("/console/{container}/{environment}/roles/{role}/delete") { c, req, s, scope in try c.deleteRole(req, s, scope) }
        r.post("/console/{container}/{environment}/roles/{role}/members") { c, req, s, scope in try c.changeMembers(req, s, scope) }
    }

    /// Settings: API tokens and server-to-server keys.
    private func registerSettingsPages(_ r: inout ScopedRoutes) {
        r.get("/console/{container}/{environment}/tokens") { c, req, s, scope in try c.tokensPage(req, s, scope) }
        r.post("/console/{container}/{environment}/tokens") { c, req, s, scope in try c.createToken(req, s, scope) }
        r.post("/console/{container}/{environment}/tokens/{id}/revoke") { c, req, s, scope in try c.revokeToken(req, s, scope) }
        r.post("/console/{container}/{environment}/keys") { c, req, s, scope in try c.addKey(req, s, scope) }
        r.post("/console/{container}/{environment}/keys/{id}/revoke") { c, req, s, scope in try c.revokeKey(req, s, scope) }
    }

    /// Data: records, zones, imports and asset downloads of a database.
    private func registerDataPages(_ r: inout ScopedRoutes) {
        r.get("/console/{container}/{environment}/import") { c, req, s, scope in try c.importPage(req, s, scope) }
        r.post("/console/{container}/{environment}/import", limit: Console.importUploadLimit) { c, req, s, scope in try c.importRecords(req, s, scope) }
        r.get("/console/{container}/{environment}/import/{job}") { c, req, s, scope in try c.importJobPage(req, s, scope, id: req.parameters["job"] ?? "") }
        r.get("/console/{container}/{environment}/assets/{checksum}") { c, req, s, scope in try c.assetDownload(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/zones") { c, req, s, scope in try c.zonesPage(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/zones") { c, req, s, scope in try c.createZone(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/zones/{zone}/delete") { c, req, s, scope in try c.deleteZonePage(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/zones/{zone}/delete") { c, req, s, scope in try c.deleteZone(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/records") { c, req, s, scope in try c.recordsPage(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/new-record") { c, req, s, scope in try c.newRecordPage(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/new-record", limit: 2 << 20) { c, req, s, scope in try c.createRecord(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/records/{zone}/{recordName}") { c, req, s, scope in try c.recordPage(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/records/{zone}/{recordName}", limit: 2 << 20) { c, req, s, scope in try c.saveRecord(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/records/{zone}/{recordName}/delete") { c, req, s, scope in try c.deleteRecord(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/records/{zone}/{recordName}/asset", limit: Console.assetUploadLimit) { c, req, s, scope in
            try c.uploadAssetField(req, s, scope)
        }
    }

    /// Container-wide pages (deploy, delete) carry no environment in their URL; they are drawn as Development's.
    func containerPage(_ req: HTTPRequest, _ page: @escaping @Sendable (Session, ConsoleScope) throws -> HTTPResponse) async throws -> HTTPResponse {
        var r = req
        r.parameters["environment"] = "development"
        return try await scoped(r, page)
    }
}
