import Foundation

/// One console figure's load, checked and warmed up: its paths requested in turn on keep-alive connections, each
/// answer checked for a piece of text, and the rate the warm-up ran at, which sizes each measured run.
struct PageLoad {
    let port: UInt16
    let connections: Int
    let label: String
    let make: @Sendable (Int, Int) -> [UInt8]
    let check: @Sendable (Int, [UInt8]) -> Bool
    /// Requests a second in the warm-up.
    let rate: Double

    /// Sends the first path once and checks its answer, then warms up for a third of `seconds`.
    init(port: UInt16, paths: [String], cookie: String?, check: String, connections: Int, seconds: Int) throws {
        let headers = cookie.map { ["Cookie": $0] } ?? [:]
        let requests = paths.map { LoadClient.request("GET", $0, headers: headers) }
        let needle = Array(check.utf8)
        let (status, body) = try LoadClient(port: port).send(requests[0])
        guard status == 200, APIScenario.find(needle, in: body, from: 0) != nil else {
            let text = String(decoding: body.suffix(300), as: UTF8.self)
            throw BenchFailure("GET \(paths[0]) answered \(status): \(text)")
        }
        make = { c, i in requests[(c * 31 + i) % requests.count] }
        self.check = { s, b in s == 200 && APIScenario.find(needle, in: b, from: 0) != nil }
        (self.port, self.connections, label) = (port, connections, paths[0])
        let probe = try LoadClient.run(port: port, connections: connections, perConnection: 4, make: make,
                                       check: self.check)
        let probeRate = Double(connections * 4) / max(probe.seconds, 1e-6)
        let warm = try LoadClient.run(port: port, connections: connections,
                                      perConnection: max(4, Int(probeRate * Double(seconds) / 3) / connections),
                                      make: make, check: self.check)
        rate = Double(warm.latencies.count) / max(warm.seconds, 1e-6)
    }

    /// One measured run and what it cost the serving process `pid`.
    struct Measured {
        var run: ConsoleScenario.PageRun

        /// Each figure's median over `runs` (their rates' too).
        static func median(_ runs: [Measured]) -> ConsoleScenario.PageRun {
            func mid(_ values: [Double]) -> Double {
                let s = values.sorted()
                return s.isEmpty ? 0 : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
            }
            return ConsoleScenario.PageRun(rps: mid(runs.map(\.run.rps)), p99: mid(runs.map(\.run.p99)),
                                           cpuMicros: mid(runs.map(\.run.cpuMicros)))
        }
    }

    /// About `seconds` of load at the warm-up's rate.
    func measure(pid: Int32, seconds: Double) throws -> Measured {
        let perConnection = max(8, Int(rate * seconds) / connections)
        stderr("\(perConnection * connections) requests on \(label) …")
        let cpu0 = processCPUSeconds(pid: pid)
        let run = try LoadClient.run(port: port, connections: connections, perConnection: perConnection, make: make,
                                     check: check)
        let cpu1 = processCPUSeconds(pid: pid)
        let sorted = run.latencies.sorted()
        let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        return Measured(run: ConsoleScenario.PageRun(rps: Double(run.latencies.count) / run.seconds, p99: p99,
                                                     cpuMicros: (cpu1 - cpu0) * 1e6 / Double(max(1,
                                                             run.latencies.count))))
    }
}
