import Foundation
import StratusHTTP

/// A chart drawn on the server as SVG (the Telemetry page needs no JavaScript). Counts are bars per interval,
/// stacked by series, zero where there were none; measures (latency percentiles) are lines, each series with its
/// own colour, dash and marker, so they read apart in either colour scheme and in grey; an interval without a
/// value is a gap, shaded as one, never a stray dot. The y axis runs from 0 in round steps (whole ones for counts),
/// labelled with the unit; hovering an interval shows its exact values (an SVG `<title>`), and `rows` gives them all as a table for
/// the keyboard and screen readers.
struct SVGChart {
    struct Series { var name: String; var values: [Double?] }
    enum Style { case bars, lines }

    var title, unit: String
    var series: [Series]
    /// Labels of the points (times), as many as the values.
    var labels: [String]
    var style: Style = .lines
    var width = 640.0
    var height = 200.0

    /// Series colours come from the stylesheet (`.series-0` … `.series-7`), one set per colour scheme, each at
    /// least 3:1 against its background (the page's CSP allows no inline style).
    static let seriesClasses = 8

    static func seriesClass(_ i: Int) -> String { "series-\(i % seriesClasses)" }

    /// Dash patterns of line series, after the colour: solid, dashed, dotted, dash-dot.
    static let dashes = ["", "6 3", "2 3", "8 3 2 3"]

    /// 1, 2 or 5 times a power of ten, at least `v` (and at least 1 for an empty chart).
    static func roundUp(_ v: Double) -> Double {
        guard v > 0 else { return 1 }
        let p = pow(10, floor(log10(v)))
        for m in [1.0, 2, 5, 10] where m * p >= v { return m * p }
        return 10 * p
    }

    /// The y axis's step and how many steps reach `peak`: about five round steps, and never a fraction of one for
    /// counts (a bar of 3 errors is read against 0, 1, 2, 3, not 1.25 and 2.5).
    static func axis(peak: Double, whole: Bool) -> (step: Double, steps: Int) {
        let step = whole ? max(1, roundUp(peak / 5)) : roundUp(peak / 5)
        return (step, max(1, Int((peak / step - 1e-9).rounded(.up))))
    }

    static func format(_ v: Double) -> String {
        if v >= 1_000_000_000 { return String(format: "%.3gG", v / 1e9) }
        if v >= 1_000_000 { return String(format: "%.3gM", v / 1e6) }
        if v >= 10_000 { return String(format: "%.3gk", v / 1e3) }
        if v == v.rounded() { return String(Int(v)) }
        return String(format: "%.3g", v)
    }

    /// A series' value at interval `i`, if it has one.
    private func value(_ s: Series, _ i: Int) -> Double? { s.values[safe: i].flatMap { $0 } }

    /// Whether no series has a value at interval `i`.
    private func isGap(_ i: Int) -> Bool { series.allSatisfy { value($0, i) == nil } }

    private var count: Int { max(labels.count, series.map(\.values.count).max() ?? 0) }

    /// The highest the y axis must reach: a bar's stack, or a line's point.
    private var peak: Double {
        switch style {
        case .bars: (0..<count).map { i in series.reduce(0) { $0 + (value($1, i) ?? 0) } }.max() ?? 0
        case .lines: series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
        }
    }

    var svg: String {
        let left = 60.0, right = 8.0, top = 10.0, bottom = 34.0
        let plotW = width - left - right, plotH = height - top - bottom
        let count = self.count, axis = Self.axis(peak: peak, whole: style == .bars)
        let yMax = axis.step * Double(axis.steps)
        let slot = count > 0 ? plotW / Double(count) : plotW
        func x(_ i: Int) -> Double { left + slot * (Double(i) + 0.5) }
        func y(_ v: Double) -> Double { top + plotH * (1 - v / yMax) }
        func n(_ v: Double) -> String { String(format: "%.1f", v) }
        let e = HTML.escape
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" class=\"chart\" role=\"img\" aria-labelledby=\"\(e(id))-t \(e(id))-d\">"
        out += "<title id=\"\(e(id))-t\">\(e(title))</title><desc id=\"\(e(id))-d\">\(e(description))</desc>"
        // Gaps: intervals where no series has a value, shaded so a break in a line reads as "nothing here".
        if style == .lines {
            for i in 0..<count where isGap(i) { out += band(x(i) - slot / 2, top, slot, plotH, "gap", n) }
        }
        for k in 0...axis.steps {
            let v = axis.step * Double(k)
            out += "<line x1=\"\(n(left))\" x2=\"\(n(width - right))\" y1=\"\(n(y(v)))\" y2=\"\(n(y(v)))\" class=\"grid\"/>"
            out += "<text x=\"\(n(left - 6))\" y=\"\(n(y(v) + 4))\" text-anchor=\"end\" class=\"axis\">\(e(Self.format(v)))</text>"
        }
        let middle = n(top + plotH / 2)
        out += "<text x=\"12\" y=\"\(middle)\" text-anchor=\"middle\" class=\"axis unit\" "
            + "transform=\"rotate(-90 12 \(middle))\">\(e(unit))</text>"
        if count > 0 {
            for i in Set([0, count / 2, count - 1]).sorted() where i < labels.count {
                let anchor = i == 0 ? "start" : i == count - 1 ? "end" : "middle"
                let at = i == 0 ? x(i) - slot / 2 : i == count - 1 ? x(i) + slot / 2 : x(i)
                out += "<text x=\"\(n(at))\" y=\"\(n(top + plotH + 14))\" text-anchor=\"\(anchor)\" class=\"axis\">"
                    + "\(e(labels[i]))</text>"
            }
            out += "<text x=\"\(n(left + plotW / 2))\" y=\"\(n(height - 4))\" text-anchor=\"middle\" "
                + "class=\"axis unit\">time (UTC)</text>"
        }
        switch style {
        case .bars: out += bars(x: x, y: y, slot: slot, n: n)
        case .lines: out += lines(x: x, y: y, n: n)
        }
        // One hover target per interval, over the whole height: its exact values.
        for i in 0..<count {
            out += band(x(i) - slot / 2, top, slot, plotH, "hit", n, title: rowText(i))
        }
        return out + "</svg>"
    }

    /// A rectangle of `cls`, with a hover title when it has one.
    private func band(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ cls: String, _ n: (Double) -> String,
                      title: String? = nil) -> String {
        let rect = "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(w))\" height=\"\(n(h))\" class=\"\(cls)\""
        return title.map { rect + "><title>\(HTML.escape($0))</title></rect>" } ?? rect + "/>"
    }

    private func bars(x: (Int) -> Double, y: (Double) -> Double, slot: Double, n: (Double) -> String) -> String {
        var out = ""
        let barW = max(1, slot * 0.8)
        for i in 0..<count {
            var base = 0.0
            for (si, s) in series.enumerated() {
                let v = s.values[safe: i].flatMap { $0 } ?? 0
                guard v > 0 else { continue }
                out += band(x(i) - barW / 2, y(base + v), barW, y(base) - y(base + v), "bar \(Self.seriesClass(si))", n)
                base += v
            }
        }
        return out
    }

    private func lines(x: (Int) -> Double, y: (Double) -> Double, n: (Double) -> String) -> String {
        var out = ""
        for (si, s) in series.enumerated() {
            let dash = Self.dashes[si % Self.dashes.count]
            var run: [(Int, Double)] = []
            func emit() {
                if run.count > 1 {
                    out += "<polyline class=\"\(Self.seriesClass(si))\" stroke-width=\"1.75\""
                        + (dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\"")
                        + " points=\"\(run.map { "\(n(x($0.0))),\(n(y($0.1)))" }.joined(separator: " "))\"/>"
                }
                run.removeAll()
            }
            for (i, v) in s.values.enumerated() {
                if let v { run.append((i, v)) } else { emit() }
            }
            emit()
            // A marker on every value, of the series' own shape, so a value between two gaps is a mark, not a dot.
            for (i, v) in s.values.enumerated() { if let v { out += marker(si, x(i), y(v), n) } }
        }
        return out
    }

    private func marker(_ si: Int, _ cx: Double, _ cy: Double, _ n: (Double) -> String) -> String {
        let c = Self.seriesClass(si)
        switch si % 3 {
        case 0: return "<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"2.5\" class=\"mark \(c)\"/>"
        case 1: return "<rect x=\"\(n(cx - 2.5))\" y=\"\(n(cy - 2.5))\" width=\"5\" height=\"5\" class=\"mark \(c)\"/>"
        default: return "<path d=\"M\(n(cx)) \(n(cy - 3))l3 5h-6z\" class=\"mark \(c)\"/>"
        }
    }

    /// An id for the title and description, from the title.
    var id: String { "c-" + title.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.reduce("") { $0 + String($1) } }

    var description: String {
        guard !series.isEmpty else { return "No data." }
        let parts = series.map { s -> String in
            let values = s.values.compactMap { $0 }
            guard let last = values.last else { return "\(s.name): no data" }
            return "\(s.name): peak \(Self.format(values.max() ?? 0)) \(unit), latest \(Self.format(last)) \(unit)"
        }
        let gaps = style == .lines ? (0..<count).filter(isGap).count : 0
        return parts.joined(separator: "; ") + "." + (gaps > 0 ? " \(gaps) of \(count) intervals had no requests." : "")
    }

    /// One interval's values as words: `12:05 — p50 3.1 ms, p95 9 ms` (no value: "no requests").
    private func rowText(_ i: Int) -> String {
        let label = labels[safe: i] ?? ""
        let known = series.compactMap { s in s.values[safe: i].flatMap { $0 }.map { (s.name, Self.format($0)) } }
        if known.isEmpty { return "\(label) — " + (style == .bars ? "0 \(unit)" : "no requests") }
        if series.count == 1 { return "\(label) — \(known[0].1) \(unit)" }
        return "\(label) — " + known.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + " (\(unit))"
    }

    /// The legend, as the template shows it under the chart: bars as squares, lines as their dash.
    struct LegendEntry: Encodable { let name, series: String; let dash: String? }

    var legend: [LegendEntry] {
        series.enumerated().map { i, s in
            let dash = style == .lines ? Self.dashes[i % Self.dashes.count] : nil
            return LegendEntry(name: s.name, series: Self.seriesClass(i), dash: dash.flatMap { $0.isEmpty ? "0" : $0 })
        }
    }

    /// Every interval's values, for the table under the chart.
    struct Row: Encodable { let label: String; let values: [String] }

    var rows: [Row] {
        (0..<count).map { i in
            Row(label: labels[safe: i] ?? "", values: series.map { s in
                s.values[safe: i].flatMap { $0 }.map(Self.format) ?? (style == .bars ? "0" : "—")
            })
        }
    }
}

private extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
