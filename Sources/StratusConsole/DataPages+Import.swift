import Foundation
import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore

/// Import: an NDJSON file of records (what `stratus records export` and the API write) uploaded into a database of
/// this environment, with the same importer as `stratus records import`: atomic batches, and a refused line
/// reported with its number and CloudKit error while every batch before it stays imported. The import runs in the
/// background; its page shows the progress and then the outcome. Audited.
extension DataPages {
    /// The largest file the page takes (bigger loads: `stratus records import`).
    static let importUploadLimit = 64 * 1024 * 1024
    /// Batches of the API's size: an upload runs inside the serving process, and a smaller batch lets API writes in
    /// sooner.
    static let importBatchSize = 200

    func importPage(_ r: ConsoleRequest, error: String? = nil) throws -> HTTPResponse {
        let scope = r.scope
        let view = ImportView(action: scope.paths.importPage(), limitMB: DataPages.importUploadLimit >> 20,
                              error: error)
        return page(r, tab: .importRecords, "import", title: "Import records", view, json: [String: String](),
                    status: error == nil ? .ok : .badRequest)
    }

    /// `import.mustache`: the upload form.
    struct ImportView: Encodable { let action: String; let limitMB: Int; let error: String? }

    /// `import-job.mustache`: an import running (reloading itself), done or stopped.
    struct ImportJobView: Encodable {
        struct Done: Encodable { let imported: Int; let seconds: String }
        let filename, again: String
        var running: Bool?
        var refresh, records: Int?
        var rate, eta: String?
        var percent: Int?
        var done: Done?
        var error: String?
    }

    /// An import in the page's JSON variant.
    struct ImportJobJSON: Encodable {
        let id: String
        let committedLines: Int
        var state = ""
        var records, line: Int?
        var code, reason: String?
    }

    func importRecords(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard let form = MultipartForm(req.body, contentType: req.headers["content-type"]) else {
            return try importPage(r, error: "The file did not arrive as a form upload (multipart/form-data).")
        }
        let fields = Dictionary(form.fields, uniquingKeysWith: { a, _ in a })
        guard let file = form.file(named: "file"), !file.data.isEmpty else { return try importPage(r,
                error: "Choose an NDJSON file to import.") }
        guard let mode = RecordImporter.Mode(rawValue: fields["mode"] ?? "create") else { return try importPage(r,
                error: "Choose create or upsert.") }
        let database: DatabaseID
        switch fields["database"] ?? "public" {
        case "public": database = .publicDatabase
        case "private":
            let user = (fields["user"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !user.isEmpty else { return try importPage(r,
                                                             error: "A private database is a user's: give their user record name.") }
            database = .privateDatabase(of: user)
        default: return try importPage(r, error: "Choose the public or a private database.")
        }
        let zone = (fields["zone"] ?? "").trimmingCharacters(in: .whitespaces)
        // The import runs on a thread of its own; the job's page follows it.
        let job = ImportJobs.Job(id: Secrets.hex(Secrets.randomBytes(12)), container: scope.container,
                                 environment: scope.environment,
                                 filename: String((file.filename ?? "a file").prefix(200)), started: Date())
        try console.importJobs.start(job)
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-import-\(UUID().uuidString).ndjson")
        try file.data.write(to: temp)
        let importer = RecordImporter(env: scope.env, database: database, zone: zone.isEmpty ? nil : zone, mode: mode,
                                      batchSize: Self.importBatchSize)
        let jobs = console.importJobs, console = self, label = database.scope.rawValue
        BackgroundWork("console import").once {
            defer { try? FileManager.default.removeItem(at: temp) }
            let started = Date()
            do {
                let n = try importer.run(temp, committed: { line in jobs.update(job.id) { $0.committed = line } },
                                         progress: { p in jobs.update(job.id) { $0.progress = p } })
                jobs.update(job.id) { $0.state = .done(records: n); $0.seconds = Date().timeIntervalSince(started) }
                try? console.audit(s, scope, "import records", "\(n) records into \(label) from \(job.filename)")
            } catch {
                let e = (error as? RecordImporter.LineError) ?? RecordImporter.LineError(line: 0,
                        error: (error as? StratusError) ?? StratusError(.internalError, "the import failed: \(error)"))
                // What the job's page may show: an internal error's detail goes to the log, under the id the page
                // quotes.
                let reason = ErrorEnvelope.publicReason(e.error, uuid: UUID().uuidString.lowercased(),
                                                        path: scope.paths.importJob(job.id))
                jobs.update(job.id) { $0.state = .failed(line: e.line, code: e.error.code.rawValue,
                                                         reason: reason); $0.seconds = Date().timeIntervalSince(started) }
                let committed = jobs.job(job.id)?.committed ?? 0
                try? console.audit(s, scope, "import records",
                                   "stopped at line \(e.line) (\(e.error.code.rawValue)); lines up to \(committed) imported")
            }
        }
        return .redirect(to: scope.paths.importJob(job.id), status: .seeOther)
    }

    /// An import's page: its progress (reloading itself every second while it runs), then its outcome.
    func importJobPage(_ r: ConsoleRequest, id: String) throws -> HTTPResponse {
        let scope = r.scope
        guard let job = console.importJobs.job(id), job.container == scope.container, job.environment == scope.environment else {
            throw StratusError(.notFound,
                               "No import \(id.prefix(40)) here (the console keeps its last \(ImportJobs.kept) imports until it restarts).")
        }
        var values = ImportJobView(filename: job.filename, again: scope.paths.importPage())
        var json = ImportJobJSON(id: job.id, committedLines: job.committed)
        let p = job.progress
        switch job.state {
        case .running:
            values.running = true
            values.refresh = 1
            values.records = p?.records ?? 0
            values.rate = String(format: "%.0f", p?.recordsPerSecond ?? 0)
            values.percent = p.map { $0.totalBytes > 0 ? Int(100 * $0.bytesRead / $0.totalBytes) : 0 } ?? 0
            values.eta = p?.secondsLeft.map { String(format: "%.0f", $0) } ?? "—"
            json.state = "running"
            json.records = p?.records ?? 0
        case .done(let n):
            values.done = .init(imported: n, seconds: String(format: "%.1f", job.seconds))
            json.state = "done"
            json.records = n
        case .failed(let line, let code, let reason):
            values.error = "Line \(line): \(reason) (\(code)). Nothing of its batch was written; lines up to \(job.committed) are imported."
            json.state = "failed"
            json.line = line
            json.code = code
            json.reason = reason
        }
        return page(r, tab: .importRecords, "import-job", title: "Import of \(job.filename)", values, json: json)
    }
}
