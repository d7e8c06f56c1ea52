import Foundation
import StratusHTTP
import StratusModel
import StratusStore
import StratusTemplates

/// One record: every system field and typed value for people; edit, create and delete. The change tag rides
/// in the form, so a record changed meanwhile gives a conflict page with the server's version, never a silent
/// overwrite.
extension DataPages {
    struct RecordLocation { var db: DatabaseID; var zone: ZoneID; var name: String }

    func recordLocation(_ req: HTTPRequest, _ scope: ConsoleScope) throws -> RecordLocation {
        guard let db = scope.databaseID else { throw StratusError.badRequest("Choose whose database first (the as= parameter).") }
        let zone = req.parameters["zone"] ?? ZoneID.defaultZoneName
        let name = req.parameters["recordName"] ?? ""
        // A zone of the shared database belongs to whoever shares it: the store finds its owner.
        return RecordLocation(db: db, zone: ZoneID(zoneName: zone,
                                                   ownerRecordName: db.scope == .shared ? nil : db.ownerRecordName),
                name: name)
    }

    func fetch(_ loc: RecordLocation, _ env: EnvironmentStore) throws -> StoredRecord {
        try env.records.lookup([loc.name], in: loc.db, zoneID: loc.zone)[0].get()
    }

    func actor(_ scope: ConsoleScope) -> RequestActor { RequestActor(userRecordName: scope.user ?? RequestActor.system.userRecordName, deviceID: "console") }

    func recordPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let loc = try recordLocation(req, scope)
        let record = try fetch(loc, scope.env)
        // The lookup just read the schema's generation: no second transaction for the type.
        let type = scope.env.schema.lastKnownSchema.recordType(named: record.recordType) ?? RecordTypeSchema(name: record.recordType)
        if Console.wantsJSON(req) { return Console.jsonAnswer(RecordJSON(EncryptedFields.hidden(record, type))) }
        var values = recordValues(record, type, loc, scope)
        values.message = req.query("done")
        return page(r, tab: .records, "record", title: record.recordName, values, crumbs: recordCrumbs(scope,
                record.recordType, loc))
    }

    func recordCrumbs(_ scope: ConsoleScope, _ type: String, _ loc: RecordLocation) -> [Crumb] {
        [Crumb(href: scope.db.records([("type", type), ("zone", loc.zone.isDefault ? nil : loc.zone.zoneName)]),
               label: "\(type) records")]
    }

    /// `record.mustache` (and `conflict.mustache`, with the administrator's version beside the server's).
    struct RecordView: Encodable {
        struct Stamp: Encodable { let utc, iso, local, millis, user, device: String }
        /// Drawn by hand (one per field, see `TemplateRepresentable`).
        struct Field: Encodable, TemplateRepresentable {
            let name, type: String
            var encrypted: Bool?
            var value: ValueDisplay.Detail?
            var empty: Bool?

            var templateValue: TemplateValue {
                .named(["name": .string(name), "type": .string(type), "encrypted": encrypted.map(TemplateValue.bool),
                        "value": value?.templateValue, "empty": empty.map(TemplateValue.bool)])
            }
        }
        let recordName, recordType, zone: String
        var tag: String
        let created, modified: Stamp?
        let fields: [Field]
        let inputs: [RecordForm.Input]
        let action, deleteAction, assetAction: String
        let assetFields: [String]
        let hasAssetFields, readOnlyTypes: Bool
        var message, error: String?
        var conflict: Bool?
        var mine: [Field]?
    }

    func recordValues(_ r: StoredRecord, _ type: RecordTypeSchema, _ loc: RecordLocation, _ scope: ConsoleScope,
                      form: StoredRecord? = nil) -> RecordView {
        let link = { (ref: Reference) -> String in scope.db.record(zone: ref.zoneID?.zoneName ?? loc.zone.zoneName,
                                                                   name: ref.recordName) }
        let assetLink = { (a: AssetValue) -> String in scope.paths.asset(a.fileChecksum) }
        let assetType = { (a: AssetValue) -> String in scope.env.assets.assetPrefix(checksum: a.fileChecksum).map(DataPages.sniff) ?? "missing file" }
        let names = type.userFields.map(\.name) + r.fields.keys.filter { type.field(named: $0) == nil }.sorted()
        let fields = names.map { n in
            var f = RecordView.Field(name: n, type: type.field(named: n)?.type.description ?? "")
            if type.field(named: n)?.type.encrypted == true, r.fields[n] != nil {
                f.encrypted = true
            } else if let v = r.fields[n] {
                f.value = ValueDisplay.detail(v, link: link, assetLink: assetLink, assetType: assetType)
            } else {
                f.empty = true
            }
            return f
        }
        func stamp(_ st: RecordStamp?) -> RecordView.Stamp? {
            st.map { st in
                RecordView.Stamp(utc: ValueDisplay.utcString(st.timestamp),
                                 iso: RecordForm.inputTimestamp(st.timestamp) + "Z",
                        local: ValueDisplay.localString(st.timestamp),
                                 millis: String(st.timestamp), user: st.userRecordName, device: ValueDisplay.visible(st.deviceID))
            }
        }
        return RecordView(
            recordName: ValueDisplay.visible(r.recordName), recordType: r.recordType, zone: loc.zone.zoneName,
            tag: r.recordChangeTag ?? "", created: stamp(r.created), modified: stamp(r.modified),
            fields: fields, inputs: RecordForm.inputs(for: type, record: form ?? r),
            action: scope.db.record(zone: loc.zone.zoneName,
                                    name: loc.name), deleteAction: scope.db.deleteRecord(zone: loc.zone.zoneName,
                    name: loc.name),
            assetAction: scope.db.recordAsset(zone: loc.zone.zoneName, name: loc.name),
            assetFields: type.userFields.filter { $0.type.scalar == .asset }.map(\.name),
            hasAssetFields: type.userFields.contains { $0.type.scalar == .asset },
            readOnlyTypes: type.userFields.isEmpty)
    }

    func saveRecord(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let loc = try recordLocation(req, scope)
        let current = try fetch(loc, scope.env)
        let type = try scope.env.schema.current().recordType(named: current.recordType) ?? RecordTypeSchema(name: current.recordType)
        let items = HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self))
        let tag = items.first { $0.name == "tag" }?.value ?? ""
        let fields = try RecordForm.fields(from: items, type: type, existing: current)
        let edited = StoredRecord(recordName: loc.name, recordType: current.recordType, zoneID: loc.zone,
                                  recordChangeTag: tag, fields: fields)
        let result = try scope.env.records.modify([RecordOperation(.replace, edited)], in: loc.db, zoneID: loc.zone,
                                                  actor: actor(scope))[0]
        switch result {
        case .failed(let e) where e.code == .conflict:
            return conflictPage(r, loc, type, mine: edited, server: e.serverRecord ?? current)
        case .failed(let e):
            var values = recordValues(current, type, loc, scope, form: edited)
            values.error = e.reason
            values.tag = tag
            return page(r, tab: .records, "record", title: current.recordName, values, crumbs: recordCrumbs(scope,
                    current.recordType, loc),
                        status: .code(e.code.httpStatus))
        default:
            try audit(s, scope, "edit record", "\(loc.db.scope.rawValue)/\(loc.zone.zoneName)/\(loc.name)")
            return .redirect(to: scope.db.record(zone: loc.zone.zoneName, name: loc.name, [("done", "Saved.")]))
        }
    }

    /// The largest file the record page uploads as an asset (the API's upload URLs take the same).
    static let assetUploadLimit = 50 * 1024 * 1024

    /// A file from the record page's upload form becomes the value of an ASSET field (or one more item of an
    /// ASSET list), saved with the change tag the page was drawn with.
    func uploadAssetField(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let loc = try recordLocation(req, scope)
        let current = try fetch(loc, scope.env)
        let type = scope.env.schema.lastKnownSchema.recordType(named: current.recordType) ?? RecordTypeSchema(name: current.recordType)
        guard let form = MultipartForm(req.body, contentType: req.headers["content-type"]) else {
            throw StratusError.badRequest("The upload did not arrive as a form with a file (multipart/form-data).")
        }
        let fields = Dictionary(form.fields, uniquingKeysWith: { a, _ in a })
        let name = fields["field"] ?? ""
        guard let field = type.field(named: name), field.type.scalar == .asset else {
            throw StratusError.badRequest("Choose one of this record type's asset fields.")
        }
        guard let file = form.file(named: "file"), !file.data.isEmpty else { throw StratusError.badRequest("Choose a file to upload.") }
        let asset = try scope.env.assets.uploadAsset(file.data)
        var values = current.fields
        if field.type.isList, case .list(let t, let items)? = values[name] {
            values[name] = .list(t, items + [.asset(asset)])
        } else {
            values[name] = field.type.isList ? .list(.asset, [.asset(asset)]) : .asset(asset)
        }
        let edited = StoredRecord(recordName: loc.name, recordType: current.recordType, zoneID: loc.zone,
                                  recordChangeTag: fields["tag"] ?? "", fields: values)
        switch try scope.env.records.modify([RecordOperation(.replace, edited)], in: loc.db, zoneID: loc.zone,
                                            actor: actor(scope))[0] {
        case .failed(let e) where e.code == .conflict:
            return conflictPage(r, loc, type, mine: edited, server: e.serverRecord ?? current)
        case .failed(let e):
            throw e
        default:
            try audit(s, scope, "upload asset",
                      "\(loc.db.scope.rawValue)/\(loc.zone.zoneName)/\(loc.name) field \(name), \(file.data.count) bytes")
            return .redirect(to: scope.db.record(zone: loc.zone.zoneName, name: loc.name, [("done", "Uploaded.")]))
        }
    }

    /// Both versions side by side; the form re-submits the admin's values over the server's change tag, so
    /// overwriting is a deliberate second choice.
    func conflictPage(_ r: ConsoleRequest, _ loc: RecordLocation, _ type: RecordTypeSchema,
                      mine: StoredRecord, server: StoredRecord) -> HTTPResponse {
        let scope = r.scope
        var values = recordValues(server, type, loc, scope, form: mine)
        values.conflict = true
        values.mine = recordValues(mine, type, loc, scope).fields
        values.error = "This record was changed by someone else after you opened it. Nothing was saved."
        return page(r, tab: .records, "conflict", title: "Conflict: \(server.recordName)", values,
                    crumbs: recordCrumbs(scope, server.recordType, loc), status: .conflict)
    }

    func deleteRecord(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let loc = try recordLocation(req, scope)
        let current = try fetch(loc, scope.env)
        let tag = formValue(req, "tag") ?? ""
        let op = RecordOperation(.delete, StoredRecord(recordName: loc.name, recordType: current.recordType,
                                                       zoneID: loc.zone, recordChangeTag: tag))
        let result = try scope.env.records.modify([op], in: loc.db, zoneID: loc.zone, actor: actor(scope))[0]
        if case .failed(let e) = result {
            if e.code == .conflict {
                let type = try scope.env.schema.current().recordType(named: current.recordType) ?? RecordTypeSchema(name: current.recordType)
                var values = recordValues(current, type, loc, scope)
                values.error = "This record was changed by someone else after you opened it, so it was not deleted. Here is its current version."
                return page(r, tab: .records, "record", title: current.recordName, values, crumbs: recordCrumbs(scope,
                        current.recordType, loc), status: .conflict)
            }
            throw e
        }
        try audit(s, scope, "delete record", "\(loc.db.scope.rawValue)/\(loc.zone.zoneName)/\(loc.name)")
        return .redirect(to: scope.db.records([("type", current.recordType), ("zone",
                loc.zone.isDefault ? nil : loc.zone.zoneName)]))
    }

    func newRecordPage(_ r: ConsoleRequest, error: String? = nil, form: StoredRecord? = nil) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        guard scope.databaseID != nil else { return try AccessPages(console: console).chooseUserPage(r, tab: .records) }
        let schema = try scope.env.schema.current()
        let typeName = req.query("type") ?? formValue(req, "type") ?? schema.recordTypes.first?.name ?? ""
        guard let type = schema.recordType(named: typeName) else { throw StratusError(.notFound,
                "There is no record type \(typeName.prefix(60)).") }
        let zone = req.query("zone") ?? formValue(req, "zone") ?? ZoneID.defaultZoneName
        let view = NewRecordView(recordType: type.name, zone: zone, recordName: form?.recordName ?? "",
                                 inputs: RecordForm.inputs(for: type, record: form),
                                 action: scope.db.newRecord([("type", type.name), ("zone", zone)]), error: error)
        return page(r, tab: .records, "new-record", title: "New \(type.name)", view,
                    crumbs: [Crumb(href: scope.db.records([("type", type.name)]), label: "\(type.name) records")],
                    status: error == nil ? .ok : .badRequest)
    }

    /// `new-record.mustache`.
    struct NewRecordView: Encodable {
        let recordType, zone, recordName: String
        let inputs: [RecordForm.Input]
        let action: String
        let error: String?
    }

    func createRecord(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard let db = scope.databaseID else { throw StratusError.badRequest("Choose whose database first.") }
        let schema = try scope.env.schema.current()
        let typeName = req.query("type") ?? ""
        guard let type = schema.recordType(named: typeName) else { throw StratusError(.notFound,
                "There is no record type \(typeName.prefix(60)).") }
        let zone = ZoneID(zoneName: req.query("zone") ?? ZoneID.defaultZoneName,
                          ownerRecordName: db.scope == .shared ? nil : db.ownerRecordName)
        let items = HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self))
        let name = (items.first { $0.name == "recordName" }?.value ?? "").trimmingCharacters(in: .whitespaces)
        var record = StoredRecord(recordName: name.isEmpty ? UUID().uuidString : name, recordType: type.name,
                                  zoneID: zone)
        do {
            record.fields = try RecordForm.fields(from: items, type: type, existing: nil)
            let result = try scope.env.records.modify([RecordOperation(.create, record)], in: db, zoneID: zone,
                                                      actor: actor(scope))[0]
            if case .failed(let e) = result { throw e }
        } catch let error as StratusError {
            return try newRecordPage(r, error: Console.explain(error, path: req.rawPath).error.reason, form: record)
        }
        try audit(s, scope, "create record", "\(db.scope.rawValue)/\(zone.zoneName)/\(record.recordName)")
        return .redirect(to: scope.db.record(zone: zone.zoneName, name: record.recordName, [("done", "Created.")]))
    }

    func assetDownload(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let checksum = req.parameters["checksum"] ?? ""
        guard let data = scope.env.assets.assetContent(checksum: checksum) else { throw StratusError(.notFound,
                "There is no such asset.") }
        var h = HTTPHeaders()
        h["content-type"] = DataPages.sniff(data)
        h["content-disposition"] = "attachment"
        h["cache-control"] = "private, max-age=3600"
        HTML.securityHeaders(&h)
        return HTTPResponse(status: .ok, headers: h, body: data)
    }

    /// A content type from the first bytes; assets carry none of their own.
    static func sniff(_ d: Data) -> String {
        let b = [UInt8](d.prefix(8))
        if b.starts(with: [0x89, 0x50, 0x4e, 0x47]) { return "image/png" }
        if b.starts(with: [0xff, 0xd8, 0xff]) { return "image/jpeg" }
        if b.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if b.starts(with: Array("%PDF".utf8)) { return "application/pdf" }
        return "application/octet-stream"
    }
}
