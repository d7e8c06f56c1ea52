import Foundation
import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore

/// The records page: a query builder whose whole state is the URL, a table of up to 200 rows with keyset
/// paging through continuation markers, and exports of the result as JSON and CSV.
extension DataPages {
    static let defaultColumns = 8

    func recordsPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        guard let db = scope.databaseID else { return try AccessPages(console: console).chooseUserPage(r, tab: .records) }
        let items = req.queryItems
        var q = ConsoleQuery(items)
        if ConsoleQuery.hasFormRows(items) {
            return .redirect(to: scope.db.records(q.queryItems()))
        }
        let schema = try scope.env.schema.current()
        if q.recordType == nil { q.recordType = schema.recordTypes.first?.name }
        // The shared database has no default zone: open the first zone shared with the user.
        if db.scope == .shared, q.zone == ZoneID.defaultZoneName, let first = try scope.env.zones.all(in: db).first { q.zone = first.zoneID.zoneName }
        let format = req.query("format")
        guard let typeName = q.recordType, let type = schema.recordType(named: typeName) else {
            if let t = q.recordType { throw StratusError(.notFound, "There is no record type \(t.prefix(60)) in \(scope.environment.rawValue).") }
            return page(r, tab: .records, "records", title: "Records", NoTypesView(noTypes: true, schemaHref: scope.paths.schema()),
                        json: ["records": [RecordJSON]()])
        }
        if format == "csv" || (format == "json" && req.query("all") == "1") { return try export(q, type, db, scope, csv: format == "csv") }

        var failure: String?
        var status = HTTPStatus.ok
        var result = QueryResult(records: [], continuationMarker: nil)
        do {
            result = try scope.env.records.query(try q.query(type), in: db, explain: true)
        } catch {
            if Console.wantsJSON(req) { throw error }
            // Through the one redaction: an internal error's text (SQL, paths) goes to the log, not the page.
            let explained = Console.explain(error, path: req.rawPath)
            failure = explained.error.reason
            status = explained.status
        }
        if Console.wantsJSON(req) {
            let json = RecordsView.JSON(records: result.records.map { RecordJSON(EncryptedFields.hidden($0, type)) }, continuationMarker: result.continuationMarker)
            return Console.jsonAnswer(json, status: status)
        }
        let columns = q.fields.isEmpty ? Array(type.userFields.prefix(DataPages.defaultColumns).map(\.name)) : q.fields
        let rows = Self.rows(result.records, columns: columns, type: type, zone: q.zone, scope)
        let count = try scope.env.records.recordCountsByType(in: db, zoneID: ZoneID(zoneName: q.zone))[type.name] ?? 0
        let view = RecordsView(
            error: failure,
            types: schema.recordTypes.map { .init(name: $0.name, selected: $0.name == type.name) },
            zones: try scope.env.zones.all(in: db).map { .init(name: $0.zoneID.zoneName, selected: $0.zoneID.zoneName == q.zone) },
            recordType: type.name, zone: q.zone, servedBy: result.servedBy ?? "no index (SQLite scans)",
            columns: columns, rows: rows, hasRows: !rows.isEmpty, count: count,
            filterRows: filterRows(q, type), sortRows: sortRows(q, type),
            fieldChoices: type.userFields.map { .init(name: $0.name, checked: q.fields.contains($0.name)) },
            action: scope.db.recordsForm(),
            nextHref: result.continuationMarker.map { scope.db.records(q.queryItems(continuation: $0)) },
            firstHref: q.continuation == nil ? nil : scope.db.records(q.queryItems()),
            jsonHref: scope.db.records(q.queryItems() + [("format", "json"), ("all", "1")]),
            csvHref: scope.db.records(q.queryItems() + [("format", "csv")]),
            newHref: scope.db.newRecord([("type", type.name), ("zone", q.zone)]),
            defaultColumns: DataPages.defaultColumns)
        return page(r, tab: .records, "records", title: "\(type.name) records", view,
                    crumbs: [Crumb(href: scope.db.records(), label: "\(scope.database?.rawValue ?? "public") records")], status: status)
    }

    /// The table's rows: each record's chosen columns, summarised; an encrypted field shows only that it is set.
    static func rows(_ records: [StoredRecord], columns: [String], type: RecordTypeSchema, zone: String, _ scope: ConsoleScope) -> [RecordsView.Row] {
        let encrypted = EncryptedFields.names(type)
        return records.map { r in
            RecordsView.Row(name: ValueDisplay.visible(r.recordName), href: scope.db.record(zone: zone, name: r.recordName),
                            cells: columns.map { c in encrypted.contains(c) ? (r.fields[c] == nil ? "" : EncryptedFields.marker) : r.fields[c].map(ValueDisplay.summary) ?? "" },
                            modified: r.modified.map { ValueDisplay.utcString($0.timestamp) } ?? "")
        }
    }

    /// `records.mustache` when the environment has no record type yet.
    struct NoTypesView: Encodable { let noTypes: Bool; let schemaHref: String }

    /// `records.mustache`: the query builder (all its state in the URL), the page of rows and the links around it.
    struct RecordsView: Encodable {
        struct Choice: Encodable { let name: String; let selected: Bool }
        struct Row: Encodable { let name, href: String; let cells: [String]; let modified: String }
        struct FieldOption: Encodable { let name, label: String; let selected: Bool; let ops: String }
        struct FilterRow: Encodable {
            let n: Int
            let value: String
            let fields: [FieldOption]
            let ops: [Choice]
        }
        struct SortRow: Encodable { let n: Int; let fields: [FieldOption]; let desc: Bool }
        struct FieldChoice: Encodable { let name: String; let checked: Bool }
        struct JSON: Encodable { let records: [RecordJSON]; let continuationMarker: String? }
        let error: String?
        let types, zones: [Choice]
        let recordType, zone, servedBy: String
        let columns: [String]
        let rows: [Row]
        let hasRows: Bool
        let count: Int
        let filterRows: [FilterRow]
        let sortRows: [SortRow]
        let fieldChoices: [FieldChoice]
        let action: String
        let nextHref, firstHref: String?
        let jsonHref, csvHref, newHref: String
        let defaultColumns: Int
    }

    /// The form's filter rows: one per filter in the URL, and a blank one to add another.
    func filterRows(_ q: ConsoleQuery, _ type: RecordTypeSchema) -> [RecordsView.FilterRow] {
        var rows = q.filters.map { f -> (String, String, String) in
            let p = f.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            return (p[0], p.count > 1 ? p[1].uppercased() : "EQUALS", p.count > 2 ? p[2] : "")
        }
        rows.append(("", "EQUALS", ""))
        return rows.enumerated().map { i, r in
            RecordsView.FilterRow(n: i + 1, value: r.2, fields: fieldOptions(type, selected: r.0),
                                  ops: FilterComparator.allCases.map { c in .init(name: c.rawValue, selected: c.rawValue == r.1) })
        }
    }

    func sortRows(_ q: ConsoleQuery, _ type: RecordTypeSchema) -> [RecordsView.SortRow] {
        var rows = q.sorts.map { s in s.hasPrefix("-") ? (String(s.dropFirst()), true) : (s, false) }
        rows.append(("", false))
        return rows.enumerated().map { i, r in RecordsView.SortRow(n: i + 1, fields: fieldOptions(type, selected: r.0), desc: r.1) }
    }

    func fieldOptions(_ type: RecordTypeSchema, selected: String) -> [RecordsView.FieldOption] {
        let system = [SystemField.recordName, .createdTimestamp, .modifiedTimestamp, .createdUserRecordName, .modifiedUserRecordName]
        return type.userFields.map { f in
            .init(name: f.name, label: "\(f.name) (\(f.type.description))", selected: f.name == selected,
                  ops: ConsoleQuery.comparators(for: f.type).map(\.rawValue).joined(separator: " "))
        } + system.map { sf in
            .init(name: sf.schemaName, label: "\(sf.schemaName) (system)", selected: sf.schemaName == selected,
                  ops: ConsoleQuery.comparators(for: sf.fieldType).map(\.rawValue).joined(separator: " "))
        }
    }

    /// Every record the query matches, streamed a page (200 records) at a time as it is read: no cap, and memory
    /// that does not grow with the result. The body ends when the connection closes (no length is known upfront).
    func export(_ q: ConsoleQuery, _ type: RecordTypeSchema, _ db: DatabaseID, _ scope: ConsoleScope, csv: Bool) throws -> HTTPResponse {
        var start = try q.query(type)
        start.continuationMarker = nil
        let first = start
        let filename = "\(type.name)-\(scope.environment.rawValue).\(csv ? "csv" : "json")".filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_" }
        let columns = q.fields.isEmpty ? type.userFields.map(\.name) : q.fields
        let env = scope.env
        var response = csv ? HTTPResponse.text("", contentType: "text/csv; charset=utf-8") : HTTPResponse.json(Data())
        response.headers["content-disposition"] = "attachment; filename=\"\(filename)\""
        response.stream = { stream in
            var query = first
            var wroteOne = false
            guard await stream.write(Data((csv ? (["recordName", "recordChangeTag", "modified"] + columns).map(CSVCell.escape).joined(separator: ",") + "\r\n" : "{\"records\":[").utf8)) else { return }
            repeat {
                let q = query
                guard let page = try? await BlockingWork.shared.run({ try env.records.query(q, in: db) }) else { break }
                var out = ""
                for record in page.records {
                    let r = EncryptedFields.hidden(record, type)
                    if csv {
                        let cells = [r.recordName, r.recordChangeTag ?? "", r.modified.map { ValueDisplay.utcString($0.timestamp) } ?? ""]
                            + columns.map { c in r.fields[c].map(DataPages.csvText) ?? "" }
                        out += cells.map(CSVCell.escape).joined(separator: ",") + "\r\n"
                    } else {
                        out += (wroteOne ? "," : "") + String(decoding: Console.json(RecordJSON(r)), as: UTF8.self)
                        wroteOne = true
                    }
                }
                guard await stream.write(Data(out.utf8)) else { return }
                query.continuationMarker = page.continuationMarker
            } while query.continuationMarker != nil && !stream.isDraining()
            if !csv { _ = await stream.write(Data("]}".utf8)) }
        }
        return response
    }

    /// A value in full for CSV (lists as JSON), unlike the table's summaries.
    static func csvText(_ v: FieldValue) -> String {
        switch v {
        case .string(let s): s
        case .timestamp(let t): RecordForm.inputTimestamp(t.millisSince1970) + "Z"
        case .bytes(let d): d.base64EncodedString()
        case .list, .location, .asset, .reference:
            String(decoding: Console.json(WireValue(v)), as: UTF8.self)
        default: ValueDisplay.summary(v)
        }
    }
}
