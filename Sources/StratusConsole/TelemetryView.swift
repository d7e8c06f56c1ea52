import Foundation
import StratusModel

/// The Telemetry page's charts and totals, made from a report: what each chart plots and how it is labelled.
struct TelemetryView {
    let report: TelemetryReport

    var requests: Int64 { report.points.reduce(0) { $0 + $1.requests } }
    var errors: Int64 { report.points.reduce(0) { $0 + $1.errors } }
    var injected: Int64 { report.points.reduce(0) { $0 + $1.injected } }

    /// Time labels (UTC): hours and minutes within a day, the day too over a week.
    var labels: [String] {
        report.points.map { p in
            let t = CivilTime(p.minute * 60_000)
            let hm = String(format: "%02d:%02d", Int(t.hour), Int(t.minute))
            return report.range == .week ? String(format: "%02d-%02d ", Int(t.month), Int(t.day)) + hm : hm
        }
    }

    /// Operation kinds that had requests in the range, in the enum's order.
    var operations: [TelemetryOperation] {
        TelemetryOperation.allCases.filter { op in report.points.contains { ($0.latency[op]?.total ?? 0) > 0 } }
    }

    var charts: [SVGChart] {
        let points = report.points
        let interval = report.range.step == 1 ? "minute" : "\(report.range.step) minutes"
        var charts: [SVGChart] = [
            SVGChart(title: "Requests per \(interval)", unit: "requests",
                     series: [.init(name: "requests", values: points.map { Double($0.requests) })], labels: labels,
                     style: .bars),
        ]
        // Errors per interval, stacked by CloudKit error code (the six most frequent, the rest as one).
        let shown = Array(report.errorCodes.prefix(6))
        var errorSeries = shown.map { code in
            SVGChart.Series(name: code, values: points.map { Double($0.errorsByCode[code] ?? 0) })
        }
        if report.errorCodes.count > shown.count {
            errorSeries.append(.init(name: "other codes", values: points.map { p in
                Double(p.errors - shown.reduce(0) { $0 + (p.errorsByCode[$1] ?? 0) })
            }))
        }
        charts.append(SVGChart(title: "Errors per \(interval), by CloudKit error code", unit: "errors",
                               series: errorSeries, labels: labels, style: .bars))
        if injected > 0 {
            charts.append(SVGChart(title: "Injected faults per \(interval)", unit: "errors",
                                   series: [.init(name: "injected faults", values: points.map { Double($0.injected) })],
                                   labels: labels, style: .bars))
        }
        for op in operations {
            let series = [(0.5, "p50"), (0.95, "p95"), (0.99, "p99")].map { q, name in
                SVGChart.Series(name: name, values: points.map { $0.latency[op]?.quantile(q) })
            }
            charts.append(SVGChart(title: "Latency of \(op.rawValue) (ms)", unit: "ms", series: series, labels: labels))
        }
        charts.append(SVGChart(title: "Records", unit: "records", series: [.init(name: "records",
                values: points.map { $0.records.map(Double.init) })], labels: labels))
        charts.append(SVGChart(title: "Storage (MB)", unit: "MB", series: [.init(name: "records and assets",
                values: points.map { $0.bytes.map { Double($0) / 1_048_576 } })], labels: labels))
        return charts
    }

    /// Per operation kind over the whole range: requests and latency percentiles.
    struct Total: Encodable { let operation: String; let requests: Int64; let p50, p95, p99: String }

    var totals: [Total] {
        operations.map { op in
            var h = LatencyHistogram()
            for p in report.points { if let l = p.latency[op] { h.add(l) } }
            func ms(_ q: Double) -> String { h.quantile(q).map { String(format: "%.1f", $0) } ?? "—" }
            return Total(operation: op.rawValue, requests: h.total, p50: ms(0.5), p95: ms(0.95), p99: ms(0.99))
        }
    }
}
