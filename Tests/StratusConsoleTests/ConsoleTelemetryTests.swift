import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The Telemetry page charts the CloudKit API requests of its environment as SVG: requests and errors (by CloudKit
/// error code, injected faults apart) as bars per interval, latency percentiles per operation as lines told apart
/// with their gaps shaded, and records and storage.
@Suite struct ConsoleTelemetryTests {
    @Test func requestsErrorsAndInjectedFaultsAreCharted() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Telemetry")
        let token = try await offPool { () -> String in
            try f.app.store.createContainer(container)
            let now = WallClock.nowMillis()
            _ = try f.app.store.faults.addFault(Fault(container: container, environment: .development, operation: "records/query", kind: .zoneBusy, remaining: 3,
                                               probability: nil, retryAfter: 1, createdAt: now, expiresAt: now + 600_000))
            return try f.app.store.credentials.createAPIToken(container: container, environment: .development, name: "t").secret
        }
        func call(_ path: String, _ body: String) async throws -> Int {
            var req = URLRequest(url: URL(string: "\(f.app.url)database/1/\(container.rawValue)/development/public/\(path)?ckAPIToken=\(token)")!)
            req.httpMethod = "POST"
            req.httpBody = Data(body.utf8)
            return (try await f.session.data(for: req).1 as! HTTPURLResponse).statusCode
        }
        let query = #"{"query":{"recordType":"Item"}}"#
        #expect(try await call("records/query", query) == 503)
        #expect(try await call("records/query", query) == 503)
        #expect(try await call("zones/list", "{}") == 200)
        #expect(try await call("records/modify", "{not json") == 400)
        #expect(try await call("zones/list", "{}") == 200)
        f.app.sampleTelemetry()

        let base = "/console/\(container.rawValue)/development/telemetry"
        let page = try await s.get(base)
        #expect(page.status == 200)
        for text in ["Requests per minute", "Errors per minute, by CloudKit error code", "ZONE_BUSY", "BAD_REQUEST",
                     "Injected faults per minute", "Latency of query (ms)", "Latency of modify (ms)", "Records", "Storage (MB)",
                     "<svg", "Faults are on", "time (UTC)"] {
            #expect(page.html.contains(text), "missing \(text)")
        }
        #expect(page.html.contains("5 requests, 3 errors, of which 2 injected faults"), "\(page.html.prefix(4000))")
        // Counts are bars; the minutes without requests are gaps, shaded as such, never stray dots; each interval's
        // exact values show on hover, and all of them in a table.
        #expect(page.html.contains(#"class="bar series-0""#) && page.html.contains(#"class="gap""#))
        #expect(page.html.contains("— 5 requests") || page.html.contains("— 4 requests"), "a hover title with the count")
        #expect(page.html.contains("— 0 requests"), "zero where there were none")
        #expect(page.html.contains(#"stroke-dasharray="6 3""#) && page.html.contains(#"class="mark series-1""#), "p95 dashed, with its own marker")
        #expect(page.html.contains("intervals had no requests"))
        #expect(page.html.contains("<summary>Values</summary>"))

        let json = try await s.get("\(base)?range=day", accept: "application/json")
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.html.utf8)) as? [String: Any])
        let points = try #require(decoded["points"] as? [[String: Any]])
        #expect(points.count == 96 && decoded["stepMinutes"] as? Int == 15)
        #expect(points.reduce(0) { $0 + ($1["requests"] as? Int ?? 0) } == 5)
        #expect(points.reduce(0) { $0 + ($1["injected"] as? Int ?? 0) } == 2)
        // Summed over the points: the two requests may fall on either side of a 15-minute boundary.
        #expect(points.reduce(0) { $0 + (($1["errorsByCode"] as? [String: Int])?["ZONE_BUSY"] ?? 0) } == 2)
        #expect(points.contains { $0["records"] != nil })

        // Another environment's page has none of it; a range that is not one is a readable 400.
        let production = try await s.get("/console/\(container.rawValue)/production/telemetry")
        #expect(production.status == 200 && production.html.contains("No requests last hour"))
        #expect(try await s.get("\(base)?range=year").status == 400)
        // Without a session: the sign-in page, no figures.
        let anonymous = try await f.request(base)
        #expect(anonymous.status == 303 && anonymous.headers["location"]?.hasPrefix("/console/login") == true && !anonymous.html.contains("ZONE_BUSY"))
    }
}
