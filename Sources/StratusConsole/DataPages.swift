import StratusHTTP

/// Data: records, zones, imports and asset downloads of a database.
struct DataPages: ScopedPageGroup {
    let console: Console

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
