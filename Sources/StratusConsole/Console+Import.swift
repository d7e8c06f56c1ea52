import Foundation
import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore

/// Import: an NDJSON file of records (what `stratus records export` and the API write) uploaded into a database of
/// this environment, with the same importer as `stratus records import`: atomic batches, and a refused line
/// reported with its number and CloudKit error while every batch before it stays imported. Audited.
extension Console {
    /// The largest file the page takes (bigger loads: `stratus records import`).
    static let importUploadLimit = 64 * 1024 * 1024
    /// Batches of the API's size: an upload runs inside the serving process, and a smaller batch lets API writes in sooner.
    static let importBatchSize = 200

    func importPage(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope, result: [String: Any]? = nil, error: String? = nil) throws -> HTTPResponse {
        var values: [String: Any] = ["action": "\(scope.base)/import", "limitMB": Console.importUploadLimit >> 20]
        if let result { values["result"] = result }
        if let error { values["error"] = error }
        return page(req, s, scope, tab: "import", "import", title: "Import records", values, json: result ?? [:], status: error == nil ? .ok : .badRequest)
    }

    func importRecords(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope) throws -> HTTPResponse {
        guard let form = MultipartForm(req.body, contentType: req.headers["content-type"]) else {
            return try importPage(req, s, scope, error: "The file did not arrive as a form upload (multipart/form-data).")
        }
        let fields = Dictionary(form.fields, uniquingKeysWith: { a, _ in a })
        guard let file = form.file(named: "file"), !file.data.isEmpty else { return try importPage(req, s, scope, error: "Choose an NDJSON file to import.") }
        guard let mode = RecordImporter.Mode(rawValue: fields["mode"] ?? "create") else { return try importPage(req, s, scope, error: "Choose create or upsert.") }
        let database: DatabaseID
        switch fields["database"] ?? "public" {
        case "public": database = .publicDatabase
        case "private":
            let user = (fields["user"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !user.isEmpty else { return try importPage(req, s, scope, error: "A private database is a user's: give their user record name.") }
            database = .privateDatabase(of: user)
        default: return try importPage(req, s, scope, error: "Choose the public or a private database.")
        }
        let zone = (fields["zone"] ?? "").trimmingCharacters(in: .whitespaces)
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-import-\(UUID().uuidString).ndjson")
        try file.data.write(to: temp)
        defer { try? FileManager.default.removeItem(at: temp) }
        var committed = 0
        let started = Date()
        let importer = RecordImporter(env: scope.env, database: database, zone: zone.isEmpty ? nil : zone, mode: mode, batchSize: Self.importBatchSize)
        do {
            let n = try importer.run(temp, committed: { committed = $0 })
            try audit(s, scope, "import records", "\(n) records into \(database.scope.rawValue) from \(file.filename ?? "a file")")
            return try importPage(req, s, scope, result: ["imported": n, "seconds": String(format: "%.1f", Date().timeIntervalSince(started)), "ok": true])
        } catch let e as RecordImporter.LineError {
            try audit(s, scope, "import records", "stopped at line \(e.line) (\(e.error.code.rawValue)); lines up to \(committed) imported")
            let reason = e.error.code == .internalError ? "internal error" : e.error.reason
            return try importPage(req, s, scope, result: ["ok": false, "line": e.line, "code": e.error.code.rawValue, "reason": reason, "committed": committed],
                                  error: "Line \(e.line): \(reason) (\(e.error.code.rawValue)). Nothing of its batch was written; lines up to \(committed) are imported.")
        }
    }
}
