import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Query shapes: the filter-and-sort shapes this environment's queries really have, most run first, with their
/// calls, p50/p99 time, work per row returned and the index SQLite serves each with (declared, automatic, or
/// none: it sorts every match). An admin pins, drops or asks for an automatic index; every change is audited.
extension MonitorPages {
    func queryShapesPage(_ r: ConsoleRequest, error: String? = nil) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let automatic = Dictionary(try scope.env.queryShapes.autoIndexes().map { ($0.name, $0) }, uniquingKeysWith: { a,
                                   _ in a })
        let shapes = try scope.env.queryShapes.all().map { r in
            let auto = r.index.flatMap { automatic[$0] }
            return QueryShapesView.Shape(
                shape: r.shape, calls: r.calls, p50: String(format: "%.2f",
                                                            r.p50Milliseconds), p99: String(format: "%.2f",
                        r.p99Milliseconds),
                stepsPerRow: String(format: "%.0f",
                                    r.stepsPerRow), index: r.index ?? "none", kind: r.index == nil ? "none" : auto != nil ? "automatic" : "declared",
                sorts: r.sorts, plan: r.plan.joined(separator: "\n"), last: ValueDisplay.utcString(r.lastAt),
                canBuild: auto == nil, buildAction: scope.paths.buildIndexes())
        }
        let indexes = automatic.values.sorted { $0.name < $1.name }.map { ai in
            QueryShapesView.Index(
                name: ai.name, fields: "\(ai.recordType)(\((ai.equalityFields + (ai.orderField.map { [$0] } ?? [])).joined(separator: ", ")))",
                shape: ai.shape, pinned: ai.pinned, lastUsed: ValueDisplay.utcString(ai.lastUsedAt),
                state: ai.isReady ? "ready" : "building, \(Int(scope.env.queryShapes.autoIndexProgress(ai) * 100))% copied",
                size: ValueDisplay.byteCount(ai.estimatedBytes),
                built: ai.isReady ? String(format: "%.0f", ai.buildMilliseconds) : "–",
                longestStep: ai.isReady ? String(format: "%.1f", ai.longestStepMilliseconds) : "–",
                pinAction: scope.paths.automaticIndex(ai.name,
                                                      ai.pinned ? "unpin" : "pin"), dropAction: scope.paths.automaticIndex(ai.name, "drop"))
        }
        let view = QueryShapesView(shapes: shapes, hasShapes: !shapes.isEmpty, indexes: indexes,
                                   hasIndexes: !indexes.isEmpty, error: error, message: req.query("done"))
        let json = QueryShapesView.JSON(shapes: shapes.map { .init(shape: $0.shape, calls: $0.calls, index: $0.index,
                                                                   kind: $0.kind, p50Milliseconds: $0.p50) },
                                        automaticIndexes: indexes.map { .init(name: $0.name, pinned: $0.pinned,
                                                state: $0.state) })
        return page(r, tab: .shapes, "query-shapes", title: "Query shapes", view, json: json,
                    status: error == nil ? .ok : .badRequest)
    }

    /// `query-shapes.mustache`: each shape's counts, cost and plan; the automatic indexes.
    struct QueryShapesView: Encodable {
        struct Shape: Encodable {
            let shape: String
            let calls: Int
            let p50, p99, stepsPerRow, index, kind: String
            let sorts: Bool
            let plan, last: String
            let canBuild: Bool
            let buildAction: String
        }
        struct Index: Encodable {
            let name, fields, shape: String
            let pinned: Bool
            let lastUsed, state, size, built, longestStep, pinAction, dropAction: String
        }
        struct JSON: Encodable {
            struct Shape: Encodable { let shape: String; let calls: Int; let index, kind, p50Milliseconds: String }
            struct Index: Encodable { let name: String; let pinned: Bool; let state: String }
            let shapes: [Shape]
            let automaticIndexes: [Index]
        }
        let shapes: [Shape]
        let hasShapes: Bool
        let indexes: [Index]
        let hasIndexes: Bool
        let error, message: String?
    }

    /// "Build an index now" for a listed shape: pinned, since an admin asked for it. The build goes on in the
    /// background; the page shows how far it has come.
    func buildShapeIndex(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let shape = form(req)["shape"] ?? ""
        do {
            let shapes = scope.env.queryShapes
            let ai = try shapes.startAutoIndex(forShape: shape)
            if !ai.isReady { BackgroundWork("automatic index build").once { _ = try? shapes.finishAutoIndex(ai.name) } }
            try audit(s, scope, "build index", "\(ai.name) for \(shape)")
            let done = ai.isReady ? "\(ai.name) serves \(shape)." : "Building \(ai.name) for \(shape): queries use it once it is complete."
            return .redirect(to: scope.paths.queryShapes(done: done))
        } catch let e as StratusError where e.code == .badRequest {
            return try queryShapesPage(r, error: e.reason)
        }
    }

    func changeShapeIndex(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let name = req.parameters["name"] ?? ""
        let done: String
        switch req.parameters["action"] {
        case "pin": try scope.env.queryShapes.setAutoIndexPinned(name,
                                                                 true); done = "Pinned \(name): it stays even when unused."
        case "unpin": try scope.env.queryShapes.setAutoIndexPinned(name, false); done = "Unpinned \(name)."
        case "drop": try scope.env.queryShapes.dropAutoIndex(name); done = "Dropped \(name)."
        default: throw StratusError(.notFound, "There is no such page.")
        }
        try audit(s, scope, "\(req.parameters["action"]!) index", name)
        return .redirect(to: scope.paths.queryShapes(done: done))
    }
}
