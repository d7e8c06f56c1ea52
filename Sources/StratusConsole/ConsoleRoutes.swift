import StratusHTTP

// The console's URL map, group by group (stable: tests and bookmarks rely on it). Each page group's routes are
// its own `register`; they stand together here so the whole map reads as one table.

extension LoginPages {
    static func register(_ router: inout Router, console c: Console) {
        let g = LoginPages(console: c)
        router.add(.get, "/console/login") { req in await g.loginPage(req) }
        router.add(.post, "/console/login", bodyLimit: 16 * 1024) { req in await g.login(req) }
        router.add(.post, "/console/login/passkey", bodyLimit: 64 * 1024) { req in await g.passkeyLogin(req) }
        router.add(.post, "/console/logout", bodyLimit: 16 * 1024) { req in await g.logout(req) }
        router.add(.get, "/console/setup") { req in await g.setupPage(req) }
        router.add(.post, "/console/setup", bodyLimit: 16 * 1024) { req in await g.setup(req) }
        addSignedIn(to: &router, console: c) { routes in
            routes.post("/console/theme", need: .personal) { g, req, s in try g.setTheme(req, s) }
        }
    }
}

extension ContainerPages {
    static func register(_ router: inout Router, console c: Console) {
        addSignedIn(to: &router, console: c) { routes in
            routes.get("/console/") { g, req, s in try g.containersPage(req, s) }
            routes.post("/console/containers") { g, req, s in try g.createContainer(req, s) }
            routes.get("/console/audit") { g, req, s in try g.auditPage(req, s) }
            routes.containerGet("/console/{container}/deploy") { g, r in try g.deployPage(r) }
            routes.containerPost("/console/{container}/deploy", limit: 4 * routes.formLimit) { g, r in try g.deploy(r) }
            routes.containerGet("/console/{container}/delete") { g, r in try g.deleteContainerPage(r) }
            routes.containerPost("/console/{container}/delete",
                                 limit: 4 * routes.formLimit) { g, r in try g.deleteContainer(r) }
        }
    }
}

extension MonitorPages {
    static func register(_ r: inout ScopedRoutes<MonitorPages>) {
        r.get("/console/{container}/{environment}") { g, r in try g.homePage(r) }
        r.get("/console/{container}/{environment}/subscriptions") { g, r in try g.subscriptionsPage(r) }
        r.post("/console/{container}/{environment}/subscriptions/delete") { g, r in try g.deleteSubscription(r) }
        r.get("/console/{container}/{environment}/notifications") { g, r in try g.notificationsPage(r) }
        r.post("/console/{container}/{environment}/notifications/test") { g, r in try g.sendTestNotification(r) }
        r.post("/console/{container}/{environment}/notifications/apns") { g, r in try g.setAPNsKey(r) }
        r.post("/console/{container}/{environment}/notifications/apns/remove") { g, r in try g.removeAPNsKey(r) }
        r.get("/console/{container}/{environment}/webhooks") { g, r in try g.webhooksPage(r) }
        r.get("/console/{container}/{environment}/sharing") { g, r in try g.sharingPage(r) }
        r.get("/console/{container}/{environment}/query-shapes") { g, r in try g.queryShapesPage(r) }
        r.post("/console/{container}/{environment}/query-shapes/build") { g, r in try g.buildShapeIndex(r) }
        r.post("/console/{container}/{environment}/query-shapes/indexes/{name}/{action}") { g, r in try g.changeShapeIndex(r) }
        r.post("/console/{container}/{environment}/sharing/{id}/revoke") { g, r in try g.revokeShare(r) }
        r.post("/console/{container}/{environment}/webhooks") { g, r in try g.addWebhook(r) }
        r.post("/console/{container}/{environment}/webhooks/{id}/{action}") { g, r in try g.changeWebhook(r) }
        r.get("/console/{container}/{environment}/logs") { g, r in try g.logsPage(r) }
        r.get("/console/{container}/{environment}/telemetry") { g, r in try g.telemetryPage(r) }
        r.get("/console/{container}/{environment}/faults") { g, r in try g.faultsPage(r) }
        r.post("/console/{container}/{environment}/faults") { g, r in try g.addFault(r) }
        r.post("/console/{container}/{environment}/faults/{id}/clear") { g, r in try g.clearFault(r) }
    }
}

extension AccessPages {
    static func register(_ r: inout ScopedRoutes<AccessPages>) {
        r.get("/console/{container}/{environment}/users") { g, r in try g.usersPage(r) }
        r.get("/console/{container}/{environment}/act-as") { g, r in try g.actAsPage(r) }
        r.post("/console/{container}/{environment}/act-as", need: .readUserData) { g, r in try g.actAs(r) }
        r.post("/console/{container}/{environment}/act-as/stop", need: .personal) { g, r in try g.stopActing(r) }
        r.post("/console/{container}/{environment}/users/{user}/signout") { g, r in try g.signUserOut(r) }
        r.post("/console/{container}/{environment}/users/{user}/purge") { g, r in try g.purgeUserData(r) }
        r.post("/console/{container}/{environment}/users/{user}/unlink") { g, r in try g.unlinkWay(r) }
    }
}

extension SchemaPages {
    static func register(_ r: inout ScopedRoutes<SchemaPages>) {
        r.get("/console/{container}/{environment}/reset") { g, r in try g.resetPage(r) }
        r.post("/console/{container}/{environment}/reset") { g, r in try g.reset(r) }
        r.get("/console/{container}/{environment}/schema") { g, r in try g.schemaPage(r) }
        r.post("/console/{container}/{environment}/schema/types") { g, r in try g.addRecordType(r) }
        r.post("/console/{container}/{environment}/schema/import", limit: 4 << 20) { g, r in try g.importSchema(r) }
        r.get("/console/{container}/{environment}/schema/{recordType}") { g, r in try g.recordTypePage(r) }
        r.post("/console/{container}/{environment}/schema/{recordType}/fields") { g, r in try g.addField(r) }
        r.post("/console/{container}/{environment}/schema/{recordType}/indexes") { g, r in try g.saveIndexes(r) }
        r.post("/console/{container}/{environment}/schema/{recordType}/delete") { g, r in try g.deleteRecordType(r) }
        r.post("/console/{container}/{environment}/schema/{recordType}/fields/{field}/delete") { g, r in try g.deleteField(r) }
        r.get("/console/{container}/{environment}/roles") { g, r in try g.rolesPage(r) }
        r.post("/console/{container}/{environment}/roles") { g, r in try g.saveGrants(r) }
        r.post("/console/{container}/{environment}/roles/create") { g, r in try g.createRole(r) }
        r.post("/console/{container}/{environment}/roles/{role}/delete") { g, r in try g.deleteRole(r) }
        r.post("/console/{container}/{environment}/roles/{role}/members") { g, r in try g.changeMembers(r) }
    }
}

extension SettingsPages {
    static func register(_ r: inout ScopedRoutes<SettingsPages>) {
        r.get("/console/{container}/{environment}/tokens") { g, r in try g.tokensPage(r) }
        r.post("/console/{container}/{environment}/tokens") { g, r in try g.createToken(r) }
        r.post("/console/{container}/{environment}/tokens/{id}/revoke") { g, r in try g.revokeToken(r) }
        r.post("/console/{container}/{environment}/keys") { g, r in try g.addKey(r) }
        r.post("/console/{container}/{environment}/keys/{id}/revoke") { g, r in try g.revokeKey(r) }
        r.get("/console/{container}/{environment}/sign-in") { g, r in try g.signInPage(r) }
        // How the container's users sign in: the same in both environments, so a change to the whole container.
        let signIn = "/console/{container}/{environment}/sign-in"
        r.post(signIn + "/providers", need: .changeContainer) { g, r in try g.addProvider(r) }
        r.post(signIn + "/providers/{name}/remove", need: .changeContainer) { g, r in try g.removeProvider(r) }
        r.post(signIn + "/sign-up", need: .changeContainer) { g, r in try g.saveSignUpWays(r) }
    }
}

extension DataPages {
    static func register(_ r: inout ScopedRoutes<DataPages>) {
        r.get("/console/{container}/{environment}/import") { g, r in try g.importPage(r) }
        r.post("/console/{container}/{environment}/import",
               limit: DataPages.importUploadLimit) { g, r in try g.importRecords(r) }
        r.get("/console/{container}/{environment}/import/{job}") { g, r in try g.importJobPage(r,
                id: r.request.parameters["job"] ?? "") }
        r.get("/console/{container}/{environment}/assets/{checksum}") { g, r in try g.assetDownload(r) }
        r.get("/console/{container}/{environment}/{database}/zones") { g, r in try g.zonesPage(r) }
        r.post("/console/{container}/{environment}/{database}/zones") { g, r in try g.createZone(r) }
        r.get("/console/{container}/{environment}/{database}/zones/{zone}/delete") { g, r in try g.deleteZonePage(r) }
        r.post("/console/{container}/{environment}/{database}/zones/{zone}/delete") { g, r in try g.deleteZone(r) }
        r.get("/console/{container}/{environment}/{database}/records") { g, r in try g.recordsPage(r) }
        r.get("/console/{container}/{environment}/{database}/new-record") { g, r in try g.newRecordPage(r) }
        r.post("/console/{container}/{environment}/{database}/new-record",
               limit: 2 << 20) { g, r in try g.createRecord(r) }
        r.get("/console/{container}/{environment}/{database}/records/{zone}/{recordName}") { g, r in try g.recordPage(r) }
        r.post("/console/{container}/{environment}/{database}/records/{zone}/{recordName}",
               limit: 2 << 20) { g, r in try g.saveRecord(r) }
        r.post("/console/{container}/{environment}/{database}/records/{zone}/{recordName}/delete") { g, r in try g.deleteRecord(r) }
        r.post("/console/{container}/{environment}/{database}/records/{zone}/{recordName}/asset",
               limit: DataPages.assetUploadLimit) { g, r in
            try g.uploadAssetField(r)
        }
    }
}
