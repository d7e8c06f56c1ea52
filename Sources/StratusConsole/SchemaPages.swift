import StratusHTTP

/// Schema: record types, fields, indexes, security roles, and resetting Development.
struct SchemaPages: ScopedPageGroup {
    let console: Console

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
