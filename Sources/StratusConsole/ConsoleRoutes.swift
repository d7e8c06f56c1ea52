import StratusHTTP

// The console's URL map, group by group (stable: tests and bookmarks rely on it). Each page group's routes are
// its own `register`; they stand together here so the whole map reads as one table.

extension LoginPages {
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

extension ContainerPages {
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
}

extension MonitorPages {
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
        r.post("/console/{container}/{environment}/sharing/{id}/revoke") { g, req, s, scope in try g.revokeShare(req, s, scope) }
        r.post("/console/{container}/{environment}/webhooks") { g, req, s, scope in try g.addWebhook(req, s, scope) }
        r.post("/console/{container}/{environment}/webhooks/{id}/{action}") { g, req, s, scope in try g.changeWebhook(req, s, scope) }
        r.get("/console/{container}/{environment}/logs") { g, req, s, scope in try g.logsPage(req, s, scope) }
        r.get("/console/{container}/{environment}/telemetry") { g, req, s, scope in try g.telemetryPage(req, s, scope) }
        r.get("/console/{container}/{environment}/faults") { g, req, s, scope in try g.faultsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/faults") { g, req, s, scope in try g.addFault(req, s, scope) }
        r.post("/console/{container}/{environment}/faults/{id}/clear") { g, req, s, scope in try g.clearFault(req, s, scope) }
    }
}

extension AccessPages {
    static func register(_ r: inout ScopedRoutes<AccessPages>) {
        r.get("/console/{container}/{environment}/users") { g, req, s, scope in try g.usersPage(req, s, scope) }
        r.get("/console/{container}/{environment}/act-as") { g, req, s, scope in try g.actAsPage(req, s, scope) }
        r.post("/console/{container}/{environment}/act-as") { g, req, s, scope in try g.actAs(req, s, scope) }
        r.post("/console/{container}/{environment}/act-as/stop") { g, req, s, scope in try g.stopActing(req, s, scope) }
        r.post("/console/{container}/{environment}/users/{user}/signout") { g, req, s, scope in try g.signUserOut(req, s, scope) }
        r.post("/console/{container}/{environment}/users/{user}/purge") { g, req, s, scope in try g.purgeUserData(req, s, scope) }
    }
}

extension SchemaPages {
    static func register(_ r: inout ScopedRoutes<SchemaPages>) {
        r.get("/console/{container}/{environment}/reset") { g, req, s, scope in try g.resetPage(req, s, scope) }
        r.post("/console/{container}/{environment}/reset") { g, req, s, scope in try g.reset(req, s, scope) }
        r.get("/console/{container}/{environment}/schema") { g, req, s, scope in try g.schemaPage(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/types") { g, req, s, scope in try g.addRecordType(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/import", limit: 4 << 20) { g, req, s, scope in try g.importSchema(req, s, scope) }
        r.get("/console/{container}/{environment}/schema/{recordType}") { g, req, s, scope in try g.recordTypePage(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/{recordType}/fields") { g, req, s, scope in try g.addField(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/{recordType}/indexes") { g, req, s, scope in try g.saveIndexes(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/{recordType}/delete") { g, req, s, scope in try g.deleteRecordType(req, s, scope) }
        r.post("/console/{container}/{environment}/schema/{recordType}/fields/{field}/delete") { g, req, s, scope in try g.deleteField(req, s, scope) }
        r.get("/console/{container}/{environment}/roles") { g, req, s, scope in try g.rolesPage(req, s, scope) }
        r.post("/console/{container}/{environment}/roles") { g, req, s, scope in try g.saveGrants(req, s, scope) }
        r.post("/console/{container}/{environment}/roles/create") { g, req, s, scope in try g.createRole(req, s, scope) }
        r.post("/console/{container}/{environment}/roles/{role}/delete") { g, req, s, scope in try g.deleteRole(req, s, scope) }
        r.post("/console/{container}/{environment}/roles/{role}/members") { g, req, s, scope in try g.changeMembers(req, s, scope) }
    }
}

extension SettingsPages {
    static func register(_ r: inout ScopedRoutes<SettingsPages>) {
        r.get("/console/{container}/{environment}/tokens") { g, req, s, scope in try g.tokensPage(req, s, scope) }
        r.post("/console/{container}/{environment}/tokens") { g, req, s, scope in try g.createToken(req, s, scope) }
        r.post("/console/{container}/{environment}/tokens/{id}/revoke") { g, req, s, scope in try g.revokeToken(req, s, scope) }
        r.post("/console/{container}/{environment}/keys") { g, req, s, scope in try g.addKey(req, s, scope) }
        r.post("/console/{container}/{environment}/keys/{id}/revoke") { g, req, s, scope in try g.revokeKey(req, s, scope) }
    }
}

extension DataPages {
    static func register(_ r: inout ScopedRoutes<DataPages>) {
        r.get("/console/{container}/{environment}/import") { g, req, s, scope in try g.importPage(req, s, scope) }
        r.post("/console/{container}/{environment}/import", limit: DataPages.importUploadLimit) { g, req, s, scope in try g.importRecords(req, s, scope) }
        r.get("/console/{container}/{environment}/import/{job}") { g, req, s, scope in try g.importJobPage(req, s, scope, id: req.parameters["job"] ?? "") }
        r.get("/console/{container}/{environment}/assets/{checksum}") { g, req, s, scope in try g.assetDownload(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/zones") { g, req, s, scope in try g.zonesPage(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/zones") { g, req, s, scope in try g.createZone(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/zones/{zone}/delete") { g, req, s, scope in try g.deleteZonePage(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/zones/{zone}/delete") { g, req, s, scope in try g.deleteZone(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/records") { g, req, s, scope in try g.recordsPage(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/new-record") { g, req, s, scope in try g.newRecordPage(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/new-record", limit: 2 << 20) { g, req, s, scope in try g.createRecord(req, s, scope) }
        r.get("/console/{container}/{environment}/{database}/records/{zone}/{recordName}") { g, req, s, scope in try g.recordPage(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/records/{zone}/{recordName}", limit: 2 << 20) { g, req, s, scope in try g.saveRecord(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/records/{zone}/{recordName}/delete") { g, req, s, scope in try g.deleteRecord(req, s, scope) }
        r.post("/console/{container}/{environment}/{database}/records/{zone}/{recordName}/asset", limit: DataPages.assetUploadLimit) { g, req, s, scope in
            try g.uploadAssetField(req, s, scope)
        }
    }
}
