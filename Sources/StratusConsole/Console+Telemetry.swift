import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Telemetry: this environment's requests per second, error rate by CloudKit error code (injected faults told
/// apart), p50/p95/p99 latency per operation kind, and records and storage, over the last hour, day or week:
/// SVG drawn on the server from the telemetry time series, so the page needs no JavaScript.
extension Console {
    func telemetryPage(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope) throws -> HTTPResponse {
        guard let telemetry else { throw StratusError(.notFound, "This server keeps no telemetry.") }
        let rangeName = req.query("range") ?? TelemetryRange.hour.rawValue
        guard let range = TelemetryRange(rawValue: rangeName) else { throw StratusError.badRequest("range must be hour, day or week") }
        let now = WallClock.nowMillis()
        let report = try telemetry.report(container: scope.container.rawValue, environment: scope.environment.rawValue, range: range, now: now)
        let view = TelemetryView(report: report)
        let live = try store.faults(container: scope.container).filter { f in
            f.environment == scope.environment && now < f.expiresAt && (f.remaining.map { $0 > 0 } ?? true)
        }
        let values: [String: Any] = [
            "ranges": TelemetryRange.allCases.map { r in ["label": r.label, "href": scope.paths.telemetry(range: r.rawValue), "current": r == range] },
            "rangeLabel": range.label.lowercased(),
            "charts": view.charts.map { c in ["heading": c.title, "svg": c.svg, "legend": c.legend] },
            "totals": view.totals,
            "hasRequests": view.requests > 0,
            "requests": SVGChart.format(Double(view.requests)),
            "errors": SVGChart.format(Double(view.errors)),
            "injected": SVGChart.format(Double(view.injected)),
            "hasInjected": view.injected > 0,
            "faults": live.map { f in ["id": f.id, "kind": f.kind.rawValue, "operation": f.operation, "injected": f.injected] },
            "hasFaults": !live.isEmpty,
            "faultsHref": scope.paths.faults(),
        ]
        let json: [String: Any] = ["range": range.rawValue, "stepMinutes": range.step, "points": report.points.map { p -> [String: Any] in
            var o: [String: Any] = ["minute": p.minute, "requests": p.requests, "errors": p.errors, "injected": p.injected, "errorsByCode": p.errorsByCode]
            var latency: [String: Any] = [:]
            for (op, h) in p.latency {
                latency[op.rawValue] = ["count": h.total, "p50": h.quantile(0.5) ?? 0, "p95": h.quantile(0.95) ?? 0, "p99": h.quantile(0.99) ?? 0]
            }
            o["latencyMilliseconds"] = latency
            if let r = p.records { o["records"] = r }
            if let b = p.bytes { o["bytes"] = b }
            return o
        }]
        return page(req, s, scope, tab: "telemetry", "telemetry", title: "Telemetry", values, json: json)
    }
}
