import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Query shapes: the filter-and-sort shapes this environment's queries really have, most run first, with their
/// calls, p50/p99 time, work per row returned and the index SQLite serves each with (or that it sorts every match).
extension Console {
    func queryShapesPage(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope) throws -> HTTPResponse {
        let shapes = try scope.env.queryShapes().map { r -> [String: Any] in
            [
                "shape": r.shape, "calls": r.calls, "p50": String(format: "%.2f", r.p50Milliseconds), "p99": String(format: "%.2f", r.p99Milliseconds),
                "stepsPerRow": String(format: "%.0f", r.stepsPerRow), "index": r.index ?? "none (scans)", "sorts": r.sorts,
                "plan": r.plan.joined(separator: "\n"), "last": ValueDisplay.utcString(r.lastAt),
            ]
        }
        let json: [String: Any] = ["shapes": shapes.map { ["shape": $0["shape"]!, "calls": $0["calls"]!, "index": $0["index"]!, "p50Milliseconds": $0["p50"]!] }]
        return page(req, s, scope, tab: "shapes", "query-shapes", title: "Query shapes", ["shapes": shapes, "hasShapes": !shapes.isEmpty], json: json)
    }
}
