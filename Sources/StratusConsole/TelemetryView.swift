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
        let seconds = Double(report.range.step * 60)
        let points = report.points
        var charts: [SVGChart] = [
            SVGChart(title: "Requests per second", unit: "requests/s",
                     series: [.init(name: "requests/s",
                                    values: points.map { Double($0.requests) / seconds })], labels: labels),
        ]
        // Error rate: the share of requests answered with each code (the six most frequent), injected faults as a line
        // of their own.
        var errorSeries = report.errorCodes.prefix(6).map { code in
            SVGChart.Series(name: code,
                            values: points.map { p in p.requests > 0 ? 100 * Double(p.errorsByCode[code] ?? 0) / Double(p.requests) : nil })
        }
        if injected > 0 {
            errorSeries.append(.init(name: "injected faults (all codes)",
                                     values: points.map { p in p.requests > 0 ? 100 * Double(p.injected) / Double(p.requests) : nil }))
        }
        charts.append(SVGChart(title: "Error rate by CloudKit error code", unit: "% of requests", series: errorSeries,
                               labels: labels))
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
