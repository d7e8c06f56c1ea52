import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusHTTP
import StratusModel
import StratusServer
import StratusStore

/// The real application on port 0, spoken to by a real HTTP client.
@Suite struct ServeTests {
    @Test func servesHealthStaticFilesAndTheDemo() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let publicDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Public")
        let app = try await StratusApplication.open(config: ServerConfig(port: 0, dataDirectory: data, publicDirectory: publicDir, demo: true))
        try await app.start()
        defer { Task { await app.stop() } }

        let session = URLSession(configuration: .ephemeral)
        let (body, response) = try await session.data(from: URL(string: app.url + "-/health")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "{\"status\":\"ok\"}")
        let (css, cssResponse) = try await session.data(from: URL(string: app.url + "-/static/console.css")!)
        #expect((cssResponse as? HTTPURLResponse)?.statusCode == 200 && css.count > 100)

        // The demo is there, and installing it again leaves it alone.
        let notes = try app.store.environment(DemoData.container, .development).records.query(Query(recordType: "Note", resultsLimit: 5), in: .publicDatabase)
        #expect(notes.records.count == 5)
        try DemoData.install(into: app.store)
        #expect(try app.store.containers().map(\.id) == [DemoData.container])
    }

    /// `/-/metrics`: Prometheus text with requests by route, status and container, latency histograms, records per
    /// container environment, connections and memory; loopback only without a token (a forwarded client elsewhere is
    /// refused), the bearer only with one.
    @Test func metricsCountRequestsAndAreGuarded() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        var config = ServerConfig(port: 0, dataDirectory: data, demo: true)
        config.http.trustedProxies = [CIDR("127.0.0.1/32")!]
        let app = try await StratusApplication.open(config: config)
        try await app.start()
        defer { Task { await app.stop() } }
        let session = URLSession(configuration: .ephemeral)
        func get(_ path: String, _ headers: [String: String] = [:]) async throws -> (Int, String, String?) {
            var req = URLRequest(url: URL(string: app.url + path)!)
            for (k, v) in headers { req.setValue(v, forHTTPHeaderField: k) }
            let (body, response) = try await session.data(for: req)
            let http = response as! HTTPURLResponse
            return (http.statusCode, String(decoding: body, as: UTF8.self), http.value(forHTTPHeaderField: "Content-Type"))
        }
        for _ in 0..<2 { _ = try await get("-/health") }
        let container = DemoData.container.rawValue
        _ = try await get("database/1/\(container)/development/public/zones/list")   // no token: 401, still counted
        let (status, text, type) = try await get("-/metrics")
        #expect(status == 200 && type?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(text.contains(#"stratus_http_requests_total{route="/-/health",method="GET",status="200",container=""} 2"#), "\(text.prefix(2000))")
        #expect(text.contains(#"stratus_http_requests_total{route="/database/1/{container}/{environment}/{database}/zones/list",method="GET",status="401",container="\#(container)"} 1"#), "\(text.prefix(3000))")
        #expect(text.contains(#"stratus_http_request_duration_seconds_count{route="/-/health"} 2"#))
        #expect(text.contains(#"stratus_http_request_duration_seconds_bucket{route="/-/health",le="+Inf"} 2"#))
        #expect(text.contains(#"stratus_records{container="\#(container)",environment="development"} "#))
        #expect(text.contains("stratus_open_connections ") && text.contains("stratus_process_resident_bytes ") && text.contains("stratus_notification_listeners 0") && text.contains("stratus_buffered_body_bytes "))
        // The server's background work is listed by name while it runs.
        #expect(text.contains(#"stratus_background_work{name="webhook deliverer"} "#) && text.contains(#"stratus_background_work{name="request log flusher"} "#), "\(text.suffix(1500))")
        let (elsewhere, _, _) = try await get("-/metrics", ["X-Forwarded-For": "203.0.113.9"])
        #expect(elsewhere == 403)

        var guarded = ServerConfig(port: 0, dataDirectory: data.appendingPathComponent("second"))
        guarded.metricsToken = "a-metrics-token-of-some-length"
        let second = try await StratusApplication.open(config: guarded)
        try await second.start()
        defer { Task { await second.stop() } }
        for (headers, expected) in [([:], 401), (["Authorization": "Bearer wrong"], 401), (["Authorization": "Bearer a-metrics-token-of-some-length"], 200)] {
            var req = URLRequest(url: URL(string: second.url + "-/metrics")!)
            for (k, v) in headers { req.setValue(v, forHTTPHeaderField: k) }
            let (_, response) = try await session.data(for: req)
            #expect((response as? HTTPURLResponse)?.statusCode == expected, "\(headers)")
        }
    }
}
