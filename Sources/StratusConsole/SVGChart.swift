import Foundation
import StratusHTTP

/// A line chart drawn on the server as SVG (the Telemetry page needs no JavaScript): one polyline per series over
/// evenly spaced points, a gap where a point has no value, a y axis from 0 to a round maximum with its labels,
/// time labels under the first, middle and last points, and a `<title>` and `<desc>` for screen readers.
struct SVGChart {
    struct Series { var name: String; var values: [Double?] }

    var title, unit: String
    var series: [Series]
    /// Labels of the points (times), as many as the values.
    var labels: [String]
    var width = 640.0
    var height = 180.0

    /// Series colours come from the stylesheet (`.series-0` … `.series-7`), one set per colour scheme, each at
    /// least 3:1 against its background: a chart reads in light and dark alike (the page's CSP allows no inline style).
    static let seriesClasses = 8

    static func seriesClass(_ i: Int) -> String { "series-\(i % seriesClasses)" }

    /// 1, 2 or 5 times a power of ten, at least `v` (and at least 1 for an empty chart).
    static func roundUp(_ v: Double) -> Double {
        guard v > 0 else { return 1 }
        let p = pow(10, floor(log10(v)))
        for m in [1.0, 2, 5, 10] where m * p >= v { return m * p }
        return 10 * p
    }

    static func format(_ v: Double) -> String {
        if v >= 1_000_000_000 { return String(format: "%.3gG", v / 1e9) }
        if v >= 1_000_000 { return String(format: "%.3gM", v / 1e6) }
        if v >= 10_000 { return String(format: "%.3gk", v / 1e3) }
        if v == v.rounded() { return String(Int(v)) }
        return String(format: "%.3g", v)
    }

    var svg: String {
        let left = 56.0, right = 8.0, top = 10.0, bottom = 24.0
        let plotW = width - left - right, plotH = height - top - bottom
        let count = max(labels.count, series.map(\.values.count).max() ?? 0)
        let peak = series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
        let yMax = Self.roundUp(peak)
        func x(_ i: Int) -> Double { left + (count > 1 ? plotW * Double(i) / Double(count - 1) : plotW / 2) }
        func y(_ v: Double) -> Double { top + plotH * (1 - v / yMax) }
        func n(_ v: Double) -> String { String(format: "%.1f", v) }
        let e = HTML.escape
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" class=\"chart\" role=\"img\" aria-labelledby=\"\(e(id))-t \(e(id))-d\">"
        out += "<title id=\"\(e(id))-t\">\(e(title))</title><desc id=\"\(e(id))-d\">\(e(description(peak: peak)))</desc>"
        for k in 0...4 {
            let v = yMax * Double(k) / 4
            out += "<line x1=\"\(n(left))\" x2=\"\(n(width - right))\" y1=\"\(n(y(v)))\" y2=\"\(n(y(v)))\" class=\"grid\"/>"
            out += "<text x=\"\(n(left - 6))\" y=\"\(n(y(v) + 4))\" text-anchor=\"end\" class=\"axis\">\(e(Self.format(v)))</text>"
        }
        if count > 0 {
            for i in Set([0, count / 2, count - 1]).sorted() where i < labels.count {
                let anchor = i == 0 ? "start" : i == count - 1 ? "end" : "middle"
                out += "<text x=\"\(n(x(i)))\" y=\"\(n(height - 6))\" text-anchor=\"\(anchor)\" class=\"axis\">\(e(labels[i]))</text>"
            }
        }
        for (si, s) in series.enumerated() {
            // A run of consecutive values is one polyline; a lone value is a dot.
            var run: [(Int, Double)] = []
            func emit() {
                if run.count == 1 {
                    out += "<circle cx=\"\(n(x(run[0].0)))\" cy=\"\(n(y(run[0].1)))\" r=\"2\" class=\"\(Self.seriesClass(si))\"><title>\(e(s.name))</title></circle>"
                } else if run.count > 1 {
                    out += "<polyline class=\"\(Self.seriesClass(si))\" stroke-width=\"1.5\" points=\"\(run.map { "\(n(x($0.0))),\(n(y($0.1)))" }.joined(separator: " "))\"><title>\(e(s.name))</title></polyline>"
                }
                run.removeAll()
            }
            for (i, v) in s.values.enumerated() {
                if let v { run.append((i, v)) } else { emit() }
            }
            emit()
        }
        return out + "</svg>"
    }

    /// An id for the title and description, from the title.
    var id: String { "c-" + title.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.reduce("") { $0 + String($1) } }

    func description(peak: Double) -> String {
        guard !series.isEmpty else { return "No data." }
        let parts = series.map { s -> String in
            let values = s.values.compactMap { $0 }
            guard let last = values.last else { return "\(s.name): no data" }
            return "\(s.name): peak \(Self.format(values.max() ?? 0)) \(unit), latest \(Self.format(last)) \(unit)"
        }
        return parts.joined(separator: "; ") + "."
    }

    /// The legend, as the template shows it under the chart.
    struct LegendEntry: Encodable { let name, series: String }

    var legend: [LegendEntry] {
        series.enumerated().map { i, s in LegendEntry(name: s.name, series: Self.seriesClass(i)) }
    }
}
