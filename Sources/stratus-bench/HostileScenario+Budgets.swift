import Foundation
import StratusModel
import StratusServer
import StratusStore
#if canImport(Glibc)
import Glibc
#endif

/// The budgets' phases of `stratus-bench hostile`, each printing the victim's figure beside its quiet baseline:
/// - `flood_health_p99_ms` against `quiet_health_p99_ms`: `/-/health` on a new connection each time (as a monitor
///   asks), while `--flood-connections` idle connections from 32 other addresses are held open (in child processes,
///   each reconnecting whenever the server closes one). Asked: within 100 ms.
/// - `slow_readers_rss_mb` against `before_readers_rss_mb`: the server's resident memory while 8 clients that never
///   read ask for a page of 200 records of about 1 MB (190 MB of JSON each). Asked: at most 400 MB.
/// - `victim_writes_failed`: while one user uploads assets that no record uses, far past their share, another
///   user's uploads and the records that use them. Asked: 0.
extension HostileScenario {
    func connectionFlood(_ app: StratusApplication) async throws {
        let port = app.port
        let quiet = Self.healthTimes(port: port, count: 200)
        let perChild = 15_000
        var children: [Process] = []
        for c in 0..<max(1, (floodConnections + perChild - 1) / perChild) {
            // The flood's clients run niced: an attacker's machines are not the server's, and here they share its two
            // processors (the flood's polling and reconnecting would otherwise take a core from the server it floods).
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
            p.arguments = ["-n", "\(floodNiceness)",
                           URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path,
                           "flood-client", "--port", "\(port)", "--connections", "\(min(perChild, floodConnections - c * perChild))",
                           "--first-address", "\(2 + c * 32)", "--addresses", "32", "--seconds", "25"]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            children.append(p)
        }
        defer { for p in children where p.isRunning { p.terminate() } }
        // The flood builds up: the server at its total, making room and refusing.
        try await Task.sleep(for: .seconds(6))
        var peak = 0
        let during = Self.healthTimes(port: port, count: 200) { peak = max(peak, app.openConnections) }
        let figures = app.connectionFigures
        stderr("flood: \(peak) connections open at most (limit \(figures.limit)), \(figures.refusedForTotal + figures.refusedForAddress) refused, \(figures.evicted) made room")
        Figure(scenario: "hostile", metric: "flood_connections", value: Double(floodConnections),
               unit: "connections").print()
        Figure(scenario: "hostile", metric: "flood_open_connections_peak", value: Double(peak),
               unit: "connections").print()
        Figure(scenario: "hostile", metric: "quiet_health_p99_ms", value: percentile(quiet, 0.99), unit: "ms").print()
        Figure(scenario: "hostile", metric: "flood_health_p99_ms", value: percentile(during, 0.99), unit: "ms",
               baseline: percentile(quiet, 0.99)).print()
        Figure(scenario: "hostile", metric: "flood_health_max_ms", value: during.max() ?? 0, unit: "ms").print()
        for p in children where p.isRunning { p.terminate() }
        for p in children { p.waitUntilExit() }
        for _ in 0..<100 where app.openConnections > 0 { try await Task.sleep(for: .milliseconds(100)) }
    }

    /// `count` `GET /-/health` on a new connection each, 20 ms apart, in milliseconds (5 s for one not answered).
    static func healthTimes(port: UInt16, count: Int, each: () -> Void = {}) -> [Double] {
        (0..<count).map { _ in
            each()
            let start = DispatchTime.now().uptimeNanoseconds
            let fd = FloodClient.connect(port: port, from: "127.0.0.1")
            defer { if fd >= 0 { close(fd) } }
            var tv = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            let request = Array("GET /-/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var head = [UInt8](repeating: 0, count: 512)
            let n = fd < 0 ? -1 : recv(fd, &head, head.count, 0)
            let ok = n > 12 && String(decoding: head[0..<12], as: UTF8.self) == "HTTP/1.1 200"
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            usleep(20_000)
            return ok ? ms : 5_000
        }
    }

    func slowReadersPhase(_ app: StratusApplication, query: (ContainerID, String) throws -> String) async throws {
        let readers = try ContainerID("iCloud.com.example.Readers")
        try app.store.createContainer(readers)
        let env = try app.store.environment(readers, .development)
        let text = String(repeating: "r", count: 950_000)
        for b in 0..<20 {
            let ops = (0..<10).map { RecordOperation(.create, StoredRecord(recordName: "big-\(b)-\($0)",
                    recordType: "Big", fields: ["text": .string(text)])) }
            _ = try env.records.modify(ops, in: .publicDatabase, actor: RequestActor(userRecordName: Self.writer))
        }
        let q = try query(readers, Self.writer)
        let body = #"{"resultsLimit":200,"query":{"recordType":"Big"}}"#
        let request = Array("POST /database/1/\(readers.rawValue)/development/public/records/query?\(q) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
        FreedMemory.release()
        try await Task.sleep(for: .seconds(1))
        let before = Self.residentMegabytes()
        stderr("readers: \(Int(before)) MB resident with the records written")
        var stalled: [Int32] = []
        for _ in 0..<slowReaders {
            let fd = FloodClient.connect(port: app.port, from: "127.0.0.1")
            var small: Int32 = 4096
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            _ = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            stalled.append(fd)
        }
        var peak = before
        var spooled = 0
        for _ in 0..<100 {
            try await Task.sleep(for: .milliseconds(100))
            peak = max(peak, Self.residentMegabytes())
            spooled = max(spooled, app.answerFigures.spooled)
        }
        for fd in stalled { close(fd) }
        stderr("slow readers: \(spooled >> 20) MB of answers spooled at most")
        // One reader that reads: the whole page arrives.
        let (status, size) = try { () throws -> (Int, Int) in
            let (status, page) = try LoadClient(port: app.port).send(request)
            return (status, page.count)
        }()
        guard status == 200, size > 180_000_000 else { throw BenchFailure("the page of large records answered \(status), \(size) bytes") }
        Figure(scenario: "hostile", metric: "before_readers_rss_mb", value: before, unit: "MB").print()
        Figure(scenario: "hostile", metric: "slow_readers_rss_mb", value: peak, unit: "MB", baseline: before).print()
    }

    func orphanUploads(_ app: StratusApplication) async throws {
        let shared = try ContainerID("iCloud.com.example.Uploads")
        try app.store.createContainer(shared)
        let env = try app.store.environment(shared, .development)
        let attacker = Self.attacker, victim = Self.victim
        var accepted: Int64 = 0
        for i in 0..<220 {
            let blob = Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &+ i &* 7) })
            if (try? env.assets.uploadAsset(blob, uploader: attacker)) != nil { accepted += Int64(blob.count) }
        }
        var failed = 0
        // Ten megabytes of the victim's own: well within their share of the environment.
        for i in 0..<10 {
            let blob = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ i) })
            do {
                let asset = try env.assets.uploadAsset(blob, uploader: victim)
                let results = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "photo-\(i)",
                        recordType: "Photo", fields: ["image": .asset(asset)]))],
                                                     in: .privateDatabase(of: victim), actor: RequestActor(userRecordName: victim), caller: Caller(userRecordName: victim, roles: []),
                                                     requireAssetReceipts: true)
                if case .failed = results.first { failed += 1 }
            } catch { failed += 1 }
        }
        Figure(scenario: "hostile", metric: "orphan_upload_mb_accepted", value: Double(accepted >> 20),
               unit: "MB").print()
        Figure(scenario: "hostile", metric: "victim_writes_failed", value: Double(failed), unit: "writes").print()
    }

    static func residentMegabytes() -> Double { Double(ServerMetricsProbe.residentBytes()) / 1_048_576 }
}

/// The server process's resident memory (Linux's VmRSS): the bench's own process, since the server runs in it.
enum ServerMetricsProbe {
    static func residentBytes() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8), let m = s.firstMatch(of: /VmRSS:\s+(\d+) kB/), let kb = Int(m.1) else { return 0 }
        return kb * 1024
    }
}
