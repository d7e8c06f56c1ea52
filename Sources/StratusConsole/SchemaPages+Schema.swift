import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Schema pages: record types with fields and indexes. Development is edited here (every change goes through
/// the same schema import that refuses to lose anything Production has); Production is read-only.
extension SchemaPages {
    func schemaPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let schema = try scope.env.schema.current()
        if req.query("format") == "ckdb" {
            var r = HTTPResponse.text(SchemaPrinter.print(schema))
            r.headers["content-disposition"] = "attachment; filename=\"\(scope.container.rawValue.filter { $0.isLetter || $0.isNumber || $0 == "." })-\(scope.environment.rawValue).ckdb\""
            return r
        }
        let deployed = scope.isProduction ? schema : try store.environment(scope.container,
                .production).schema.current()
        let types = schema.recordTypes.map { t in
            SchemaView.RecordType(name: t.name, fieldCount: t.userFields.count, href: scope.paths.recordType(t.name),
                                  deployed: deployed.recordType(named: t.name) != nil)
        }
        let view = SchemaView(types: types, roles: schema.roles, editable: !scope.isProduction,
                              exportHref: scope.paths.schemaExport(), message: req.query("done"))
        return page(r, tab: .schema, "schema", title: "Schema", view,
                    json: SchemaView.JSON(recordTypes: schema.recordTypes.map(SchemaView.TypeJSON.init),
                                          roles: schema.roles))
    }

    /// `schema.mustache`: the record types and roles.
    struct SchemaView: Encodable {
        struct RecordType: Encodable {
            let name: String
            let fieldCount: Int
            let href: String
            let deployed: Bool
        }
        /// A record type in JSON: its fields with their indexes, and its grants.
        struct TypeJSON: Encodable {
            struct Field: Encodable { let name, type: String; let indexes: [String] }
            let name: String
            let fields: [Field]
            let grants: [String: [String]]

            init(_ t: RecordTypeSchema) {
                name = t.name
                fields = t.fields.map { Field(name: $0.name, type: $0.type.description, indexes: $0.indexes.names) }
                grants = t.grants.mapValues(\.names)
            }
        }
        struct JSON: Encodable { let recordTypes: [TypeJSON]; let roles: [String] }
        let types: [RecordType]
        let roles: [String]
        let editable: Bool
        let exportHref: String
        let message: String?
    }

    /// `record-type.mustache`: a type's fields, their indexes as checkboxes, and the forms that change them.
    struct RecordTypeView: Encodable {
        struct Choice: Encodable { let index: String; let checked: Bool }
        struct Field: Encodable {
            let name, type: String
            let system, deployed: Bool
            let indexes: String
            let choices: [Choice]
            let deleteAction: String?
        }
        struct TypeChoice: Encodable { let value, label: String }
        let recordType: String
        let fields: [Field]
        let editable, deployed: Bool
        let fieldTypes: [TypeChoice]
        let addFieldAction, indexesAction: String
        let deleteAction: String?
        let recordsHref: String
        let error, message: String?
    }

    /// `schema-import.mustache`: a pasted schema, then what importing it would change.
    struct SchemaImportView: Encodable {
        let ckdb: String
        var error: String?
        var changes: [String] = []
        var refusals: [String] = []
        var hasRefusals = false, hasChanges = false, canApply = false
        var action: String?
    }

    func recordTypePage(_ r: ConsoleRequest, error: String? = nil) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let schema = try scope.env.schema.current()
        let name = req.parameters["recordType"] ?? ""
        guard let type = schema.recordType(named: name) else { throw StratusError(.notFound,
                "There is no record type \(name.prefix(60)) in \(scope.environment.rawValue).") }
        if Console.wantsJSON(req) { return Console.jsonAnswer(SchemaView.TypeJSON(type)) }
        let deployed = try store.environment(scope.container, .production).schema.current().recordType(named: name)
        let editable = !scope.isProduction
        let system = [SystemField.recordName, .createdTimestamp, .modifiedTimestamp, .createdUserRecordName,
                      .modifiedUserRecordName]
        let all = type.userFields + system.map { sf in FieldSchema(name: sf.schemaName, type: sf.fieldType,
                                                                   indexes: type.indexes(of: sf)) }
        let fields = all.map { f in
            let allowed = FieldIndexes.allowed(for: f.type)
            let isDeployed = f.isSystem || deployed?.field(named: f.name) != nil
            return RecordTypeView.Field(name: f.name, type: f.type.description, system: f.isSystem,
                                        deployed: isDeployed,
                                        indexes: f.indexes.names.joined(separator: ", "),
                                        choices: [FieldIndexes.queryable, .sortable,
                                                  .searchable].filter { allowed.contains($0) }.map { i in
                                            RecordTypeView.Choice(index: i.names[0], checked: f.indexes.contains(i))
                                        },
                                        deleteAction: (editable && !isDeployed) ? scope.paths.deleteField(type.name,
                                                f.name) : nil)
        }
        let types = ScalarType.allCases.flatMap { s in [FieldType(s), FieldType(s,
                isList: true)] }.map { RecordTypeView.TypeChoice(value: $0.wireName, label: $0.description) }
        let view = RecordTypeView(recordType: type.name, fields: fields, editable: editable, deployed: deployed != nil,
                                  fieldTypes: types, addFieldAction: scope.paths.fields(type.name), indexesAction: scope.paths.indexes(type.name),
                                  deleteAction: (editable && deployed == nil) ? scope.paths.deleteRecordType(type.name) : nil,
                                  recordsHref: scope.paths.database(.public).records([("type",
                                          type.name)]), error: error, message: req.query("done"))
        return page(r, tab: .schema, "record-type", title: type.name, view,
                    crumbs: [Crumb(href: scope.paths.schema(),
                                   label: "Schema")], status: error == nil ? .ok : .badRequest)
    }

    /// Applies an edited copy of the Development schema; refusals (Production would lose something) are errors.
    func editSchema(_ s: Session, _ scope: ConsoleScope, _ what: String,
                    _ edit: (inout Schema) throws(StratusError) -> Void) throws {
        guard !scope.isProduction else { throw StratusError(.accessDenied,
                                                            "Production's schema changes only by deploying Development.") }
        var schema = try scope.env.schema.current()
        try edit(&schema)
        try schema.validate()
        try store.lifecycle.importSchema(schema, into: scope.container)
        try audit(s, scope, "schema", what)
    }

    func addRecordType(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let name = (formValue(req, "name") ?? "").trimmingCharacters(in: .whitespaces)
        try editSchema(s, scope, "add record type \(name)") { (schema: inout Schema) throws(StratusError) in
            guard schema.recordType(named: name) == nil else { throw StratusError(.exists,
                    "There is already a record type \(name).") }
            try Names.validate(recordType: name)
            schema.recordTypes.append(RecordTypeSchema(name: name))
        }
        return .redirect(to: scope.paths.recordType(name, done: "Created."))
    }

    func addField(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let typeName = req.parameters["recordType"] ?? ""
        let f = form(req)
        let name = (f["name"] ?? "").trimmingCharacters(in: .whitespaces)
        guard var type = FieldType(wireName: f["type"] ?? "") else { throw StratusError.badRequest("Choose the field's type.") }
        let items = HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self))
        var indexes: FieldIndexes = []
        for i in items where i.name == "index" { if let x = FieldIndexes(name: i.value) { indexes.insert(x) } }
        if f["encrypted"] == "on" {
            type.encrypted = true
            guard indexes.isEmpty else {
                throw StratusError.badRequest("An encrypted field cannot be \(indexes.names.joined(separator: ", ")): its values are opaque to the server, so nothing can be queried, sorted or searched by them. Untick the indexes or the Encrypted box.")
            }
        }
        try editSchema(s, scope,
                       "add field \(typeName).\(name) \(type)") { (schema: inout Schema) throws(StratusError) in
            guard let t = schema.recordTypes.firstIndex(where: { $0.name == typeName }) else { throw StratusError(.notFound, "There is no record type \(typeName).") }
            guard schema.recordTypes[t].field(named: name) == nil else { throw StratusError(.exists,
                    "\(typeName) already has a field \(name).") }
            try Names.validate(fieldName: name)
            // Boxes that do not apply to the type (SEARCHABLE on a number) are left out, as CloudKit's console does.
            schema.recordTypes[t].fields.append(FieldSchema(name: name, type: type,
                                                            indexes: indexes.intersection(FieldIndexes.allowed(for: type))))
        }
        return .redirect(to: scope.paths.recordType(typeName, done: "Added \(name)."))
    }

    /// The index checkboxes of every field at once (`index:FIELD=QUERYABLE`, repeated).
    func saveIndexes(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let typeName = req.parameters["recordType"] ?? ""
        let items = HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self))
        var wanted: [String: FieldIndexes] = [:]
        for i in items where i.name.hasPrefix("index:") {
            let field = String(i.name.dropFirst(6))
            if let x = FieldIndexes(name: i.value) { wanted[field, default: []].insert(x) }
        }
        try editSchema(s, scope, "indexes of \(typeName)") { (schema: inout Schema) throws(StratusError) in
            guard let t = schema.recordTypes.firstIndex(where: { $0.name == typeName }) else { throw StratusError(.notFound, "There is no record type \(typeName).") }
            var type = schema.recordTypes[t]
            for (i, f) in type.fields.enumerated() where !f.isSystem {
                if f.type.encrypted, let asked = wanted[f.name], !asked.isEmpty {
                    throw StratusError.badRequest("\(f.name) is encrypted and cannot be \(asked.names.joined(separator: ", ")): its values are opaque to the server.")
                }
                type.fields[i].indexes = (wanted[f.name] ?? []).intersection(FieldIndexes.allowed(for: f.type))
            }
            for sf in [SystemField.recordName, .createdTimestamp, .modifiedTimestamp, .createdUserRecordName,
                       .modifiedUserRecordName] {
                let want = (wanted[sf.schemaName] ?? []).intersection(FieldIndexes.allowed(for: sf.fieldType))
                if let i = type.fields.firstIndex(where: { $0.name == sf.schemaName }) {
                    if want.isEmpty { type.fields.remove(at: i) } else { type.fields[i].indexes = want }
                } else if !want.isEmpty {
                    type.fields.append(FieldSchema(name: sf.schemaName, type: sf.fieldType, indexes: want))
                }
            }
            schema.recordTypes[t] = type
        }
        return .redirect(to: scope.paths.recordType(typeName, done: "Indexes saved."))
    }

    func deleteRecordType(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let typeName = req.parameters["recordType"] ?? ""
        try editSchema(s, scope, "delete record type \(typeName)") { (schema: inout Schema) throws(StratusError) in
            guard schema.recordType(named: typeName) != nil else { throw StratusError(.notFound,
                    "There is no record type \(typeName).") }
            schema.recordTypes.removeAll { $0.name == typeName }
        }
        return .redirect(to: scope.paths.schema(done: "Deleted \(typeName)."))
    }

    func deleteField(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let typeName = req.parameters["recordType"] ?? "", field = req.parameters["field"] ?? ""
        try editSchema(s, scope, "delete field \(typeName).\(field)") { (schema: inout Schema) throws(StratusError) in
            guard let t = schema.recordTypes.firstIndex(where: { $0.name == typeName }),
                  schema.recordTypes[t].field(named: field) != nil else { throw StratusError(.notFound,
                          "There is no field \(typeName).\(field).") }
            schema.recordTypes[t].fields.removeAll { $0.name == field }
        }
        return .redirect(to: scope.paths.recordType(typeName, done: "Deleted \(field)."))
    }

    /// A pasted `.ckdb`: first a preview of what would change (with refusals), then, confirmed, the import.
    func importSchema(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard !scope.isProduction else { throw StratusError(.accessDenied, "Import into Development, then deploy.") }
        let f = form(req)
        let text = f["ckdb"] ?? ""
        let schema: Schema
        do { schema = try SchemaParser.parse(text) } catch {
            return page(r, tab: .schema, "schema-import", title: "Import schema",
                        SchemaImportView(ckdb: text, error: "The schema has an error at \(error.description)."),
                        crumbs: [Crumb(href: scope.paths.schema(), label: "Schema")], status: .badRequest)
        }
        let plan = try store.lifecycle.importPlan(schema, into: scope.container)
        if f["confirm"] == "1" {
            try plan.validate()
            try store.lifecycle.importSchema(schema, into: scope.container)
            try audit(s, scope, "import schema", plan.changes.map(\.description).joined(separator: "; "))
            return .redirect(to: scope.paths.schema(done: "Imported: \(plan.changes.count) changes."))
        }
        return page(r, tab: .schema, "schema-import", title: "Import schema",
                    SchemaImportView(ckdb: text, changes: plan.changes.map(\.description), refusals: plan.refusals,
                                     hasRefusals: !plan.refusals.isEmpty,
                                     hasChanges: !plan.changes.isEmpty, canApply: plan.refusals.isEmpty && !plan.changes.isEmpty, action: scope.paths.schemaImport()),
                    crumbs: [Crumb(href: scope.paths.schema(), label: "Schema")])
    }
}
