import Foundation
import Testing
@testable import StratusConsole

/// The Telemetry charts' y axes: round steps from 0 past the peak, whole ones for counts.
@Suite struct SVGChartTests {
    @Test(arguments: [
        (4.0, true, 1.0, 4), (3, true, 1, 3), (84, true, 20, 5), (1, true, 1, 1), (0, true, 1, 1),
        (7, true, 2, 4), (0.8, false, 0.2, 4), (12.5, false, 5, 3), (0, false, 1, 1),
    ])
    func axisSteps(peak: Double, whole: Bool, step: Double, steps: Int) {
        let axis = SVGChart.axis(peak: peak, whole: whole)
        #expect(axis.step == step && axis.steps == steps)
        #expect(axis.step * Double(axis.steps) >= peak)
    }

    @Test func countsAreLabelledInWholeNumbers() throws {
        let chart = SVGChart(title: "Errors", unit: "errors", series: [.init(name: "CONFLICT", values: [2, nil, 1]),
                                                                       .init(name: "NOT_FOUND", values: [2, 1, nil])],
                             labels: ["a", "b", "c"], style: .bars)
        // The y axis's labels, right-aligned left of the plot (x 54).
        let labels = try chart.svg.matches(of: Regex(#"<text x="54.0" y="[^"]*" text-anchor="end" class="axis">([^<]*)</text>"#))
            .map { String($0.output[1].substring ?? "") }
        #expect(labels == ["0", "1", "2", "3", "4"])
    }
}
