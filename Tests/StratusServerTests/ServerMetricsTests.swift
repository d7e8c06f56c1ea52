import Foundation
import Testing
@testable import StratusHTTP
@testable import StratusServer
import StratusStore

/// The request counts `/-/metrics` shows add up whatever threads counted them, and clients naming containers in URLs
/// make at most `maximumContainers` labels.
@Suite struct ServerMetricsTests {
    @Test func countsFromManyThreadsAddUpAndContainerLabelsStayBounded() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-metrics-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let metrics = ServerMetrics(store: try ServerStore(dataDirectory: dir, durability: .relaxed))
        let route = "/database/1/{container}/{environment}/{database}/records/lookup"
        let request = try HTTPRequest(method: .post, target: "/")
        func record(_ container: String, seconds: Double) -> RequestRecord {
            RequestRecord(method: .post, route: route, parameters: ["container": container], status: 200,
                          seconds: seconds, request: request, response: HTTPResponse())
        }
        // 8 threads, 1,000 requests each, to 300 containers: more than the labels allowed.
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { metrics.observe(record("iCloud.c\((t * 1_000 + i) % 300)", seconds: 0.0005)) }
                }
            }
        }
        let text = metrics.render()
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("stratus_http_requests_total{") }
        let total = lines.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
        #expect(total == 8_000)
        let labels = Set(lines.compactMap { $0.split(separator: "container=\"").last?.split(separator: "\"").first })
        #expect(labels.count == ServerMetrics.maximumContainers + 1)
        #expect(labels.contains("other"))
        #expect(text.contains("stratus_http_request_duration_seconds_count{route=\"\(route)\"} 8000"))
        #expect(text.contains("stratus_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"0.001\"} 8000"))
    }
}
