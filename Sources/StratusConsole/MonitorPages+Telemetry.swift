import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Telemetry: this environment's requests per second, error rate by CloudKit error code (injected faults told
/// apart), p50/p95/p99 latency per operation kind, and records and storage, over the last hour, day or week:
/// SVG drawn on the server from the telemetry time series, so the page needs no JavaScript.
extension MonitorPages {
    func telemetryPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        guard let telemetry = console.telemetry else { throw StratusError(.notFound,
                "This server keeps no telemetry.") }
        let rangeName = req.query("range") ?? TelemetryRange.hour.rawValue
        guard let range = TelemetryRange(rawValue: rangeName) else { throw StratusError.badRequest("range must be hour, day or week") }
        let now = WallClock.nowMillis()
        let report = try telemetry.report(container: scope.container.rawValue, environment: scope.environment.rawValue,
                                          range: range, now: now)
        let view = TelemetryView(report: report)
        let live = try store.faults.all(container: scope.container).filter { f in
            f.environment == scope.environment && now < f.expiresAt && (f.remaining.map { $0 > 0 } ?? true)
        }
        let page = TelemetryPage(
            ranges: TelemetryRange.allCases.map { r in .init(label: r.label,
                                                             href: scope.paths.telemetry(range: r.rawValue),
                    current: r == range) },
            rangeLabel: range.label.lowercased(),
            charts: view.charts.map { c in
                .init(heading: c.title, svg: c.svg, legend: c.legend, columns: c.series.map(\.name), rows: c.rows)
            },
            totals: view.totals, hasRequests: view.requests > 0,
            requests: SVGChart.format(Double(view.requests)), errors: SVGChart.format(Double(view.errors)),
            injected: SVGChart.format(Double(view.injected)), hasInjected: view.injected > 0,
            faults: live.map { f in .init(id: f.id, kind: f.kind.rawValue, operation: f.operation,
                                          injected: f.injected) },
            hasFaults: !live.isEmpty, faultsHref: scope.paths.faults(), demoNote: console.demoData(scope)?.note)
        let json = TelemetryPage.JSON(range: range.rawValue, stepMinutes: range.step, points: report.points.map { p in
            .init(minute: p.minute, requests: p.requests, errors: p.errors, injected: p.injected,
                  errorsByCode: p.errorsByCode,
                  latencyMilliseconds: Dictionary(p.latency.map { op, h in
                      (op.rawValue, .init(count: h.total, p50: h.quantile(0.5) ?? 0, p95: h.quantile(0.95) ?? 0,
                                          p99: h.quantile(0.99) ?? 0))
                  }, uniquingKeysWith: { a, _ in a }),
                  records: p.records, bytes: p.bytes)
        })
        return self.page(r, tab: .telemetry, "telemetry", title: "Telemetry", page, json: json)
    }

    /// `telemetry.mustache`: the range switch, the charts (SVG drawn here), totals and the faults on now.
    struct TelemetryPage: Encodable {
        struct Range: Encodable { let label, href: String; let current: Bool }
        struct Chart: Encodable {
            let heading, svg: String
            let legend: [SVGChart.LegendEntry]
            /// The values as a table: a column per series, a row per interval.
            let columns: [String]
            let rows: [SVGChart.Row]
        }
        struct LiveFault: Encodable { let id: Int64; let kind, operation: String; let injected: Int }
        struct JSON: Encodable {
            struct Latency: Encodable { let count: Int64; let p50, p95, p99: Double }
            struct Point: Encodable {
                let minute, requests, errors, injected: Int64
                let errorsByCode: [String: Int64]
                let latencyMilliseconds: [String: Latency]
                let records, bytes: Int64?
            }
            let range: String
            let stepMinutes: Int64
            let points: [Point]
        }
        let ranges: [Range]
        let rangeLabel: String
        let charts: [Chart]
        let totals: [TelemetryView.Total]
        let hasRequests: Bool
        let requests, errors, injected: String
        let hasInjected: Bool
        let faults: [LiveFault]
        let hasFaults: Bool
        let faultsHref: String
        let demoNote: String?
    }
}
