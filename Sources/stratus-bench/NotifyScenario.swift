import ArgumentParser
import Foundation
import Logging
import StratusAPI
import StratusHTTP
import StratusModel
import StratusServer
import StratusStore
import Synchronization

/// `stratus-bench notify`: notifications end to end over loopback (release build).
/// - `notify_latency_p50_ms` / `_p99_ms`: 10,000 public query subscriptions of 1,000 users on one record type
///   (each user follows ten lists: `list EQUALS "L-u-j"`, `desiredKeys` ["sentAt"]), 200 of those users listening
///   (half on SSE streams, half polling the web courier), while a writer creates records at a steady rate into
///   random users' lists. A record carries the writer's send time, so the latency is from before the write's
///   request to the listener's read: commit to delivery plus the write's own round trip, an upper bound.
/// - `modify_overhead_ratio`: records/modify throughput into a container with those subscriptions ÷ into one
///   without, alternated round by round in the same run (each record fires one notification).
/// - `webhook_deliveries_per_s`: deliveries queued while the server was down, drained to a local receiver.
struct NotifyScenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "notify", abstract: "Notification latency, write overhead and webhook throughput.")
    @Option(help: "Users with subscriptions.") var users = 1_000
    @Option(help: "Query subscriptions per user.") var perUser = 10
    @Option(help: "Listening users (half SSE, half courier).") var listeners = 200
    @Option(help: "Records written per second during the latency run.") var rate = 1_000
    @Option(help: "Seconds of the latency run.") var seconds = 20
    @Option(help: "Modify requests of 200 records per side and round (3 rounds, 4 connections).") var modifies = 40
    @Option(help: "Webhook deliveries to drain.") var deliveries = 20_000

    static let subscribed = "iCloud.com.example.Notify"
    static let plain = "iCloud.com.example.Plain"
    static let hooked = "iCloud.com.example.Hooks"
    static let writer = "_" + String(repeating: "ee", count: 16)

    static func user(_ u: Int) -> String { "_u" + String(format: "%030d", u) }

    func run() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-notify-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("stratus")
        let (subscribed, plain, hooked) = (try ContainerID(Self.subscribed), try ContainerID(Self.plain), try ContainerID(Self.hooked))

        // Setup beside the server, without syncing every commit (it is not what is measured).
        var courierTokens: [Int: String] = [:]
        let receiver = Receiver()
        do {
            let store = try ServerStore(dataDirectory: data, durability: .relaxed)
            for c in [subscribed, plain, hooked] { try store.createContainer(c) }
            let env = try store.environment(subscribed, .development)
            for u in 0..<users {
                for j in 0..<perUser {
                    let id = "list-\(j)"
                    let doc = #"{"subscriptionID":"\#(id)","subscriptionType":"query","query":{"recordType":"Item","filterBy":[{"comparator":"EQUALS","fieldName":"list","fieldValue":{"value":"L-\#(u)-\#(j)"}}]},"firesOn":["create","update","delete"],"notificationInfo":{"shouldSendContentAvailable":true,"desiredKeys":["sentAt"]}}"#
                    try env.subscriptions.saveSubscription(id, wire: try JSON.parse(Data(doc.utf8)), in: .public,
                                                           owner: Self.user(u))
                }
            }
            // Webhook deliveries queued while no server runs: the drain below measures the deliverer alone.
            let hooks = try store.environment(hooked, .development)
            try await receiver.start()
            _ = try hooks.webhooks.addWebhook(url: "http://127.0.0.1:\(receiver.port)/hook", recordTypes: ["Item"])
            var batch: [RecordOperation] = []
            for i in 0..<deliveries {
                batch.append(RecordOperation(.create, StoredRecord(recordName: "h\(i)", recordType: "Item", fields: ["list": .string("L-\(i % 97)"), "n": .int64(Int64(i))])))
                if batch.count == 200 || i == deliveries - 1 {
                    _ = try hooks.records.modify(batch, in: .publicDatabase, actor: RequestActor(userRecordName: Self.writer))
                    batch.removeAll(keepingCapacity: true)
                }
            }
        }

        var logger = Logger(label: "stratus")
        logger.logLevel = ProcessInfo.processInfo.environment["STRATUS_BENCH_LOG"] == nil ? .warning : .info
        var config = ServerConfig(port: 0, dataDirectory: data)
        config.apiLimits = APILimits(perUserPerSecond: 0, perAddressPerSecond: 0)
        let started = DispatchTime.now().uptimeNanoseconds
        let app = try await StratusApplication.open(config: config, logger: logger)
        try await app.start()
        let port = app.port

        // webhook_deliveries_per_s: from the server's start until the receiver has every delivery.
        while receiver.count < deliveries {
            try await Task.sleep(for: .milliseconds(20))
            if Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 > 300 { throw BenchFailure("webhook deliveries stalled at \(receiver.count)") }
        }
        let drain = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        Figure(scenario: "notify", metric: "webhook_deliveries_per_s", value: Double(deliveries) / drain, unit: "deliveries/s").print()
        await receiver.stop()

        let store = app.store
        let apiToken = try store.credentials.createAPIToken(container: subscribed, environment: .development, name: "bench").secret
        let plainToken = try store.credentials.createAPIToken(container: plain, environment: .development, name: "bench").secret
        func auth(_ api: String, _ user: String) throws -> String {
            let web = try store.accounts.createWebAuthToken(container: api == plainToken ? plain : subscribed, environment: .development, userRecordName: user, lifetime: AccountStore.longSession)
            return "ckAPIToken=\(api)&ckWebAuthToken=\(web.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        }

        // modify_overhead_ratio: 200-record creates into random users' lists, with the subscriptions and without.
        let users = self.users, perUser = self.perUser
        let writerWith = try auth(apiToken, Self.writer), writerWithout = try auth(plainToken, Self.writer)
        func modifyRun(_ container: ContainerID, _ q: String, _ round: Int) throws -> Double {
            let base = "/database/1/\(container.rawValue)/development/public/records/modify?\(q)"
            let r = try LoadClient.run(port: port, connections: 4, perConnection: modifies / 4, make: { c, i in
                var rng = SplitMix(seed: UInt64(round * 1_000_003 + c * 10_007 + i))
                let ops = (0..<200).map { k -> String in
                    let list = "L-\(Int(rng.next() % UInt64(users)))-\(Int(rng.next() % UInt64(perUser)))"
                    return #"{"operationType":"create","record":{"recordName":"m\#(round)-\#(c)-\#(i)-\#(k)","recordType":"Item","fields":{"list":{"value":"\#(list)"},"sentAt":{"value":0},"title":{"value":"An item of \#(list)"}}}}"#
                }
                return LoadClient.request("POST", base, body: Data(#"{"operations":[\#(ops.joined(separator: ","))]}"#.utf8))
            }, check: { status, body in status == 200 && APIScenario.find(APIScenario.serverErrorCode, in: body, from: 0) == nil })
            return Double(modifies / 4 * 4 * 200) / r.seconds
        }
        _ = try modifyRun(plain, writerWithout, 0)
        _ = try modifyRun(subscribed, writerWith, 0)
        var with: [Double] = [], without: [Double] = []
        for round in 1...3 {
            if round % 2 == 1 {
                without.append(try modifyRun(plain, writerWithout, round))
                with.append(try modifyRun(subscribed, writerWith, round))
            } else {
                with.append(try modifyRun(subscribed, writerWith, round))
                without.append(try modifyRun(plain, writerWithout, round))
            }
            stderr("round \(round): with \(Int(with.last!)) without \(Int(without.last!))")
        }
        Figure(scenario: "notify", metric: "modify_records_per_s", value: median(with), unit: "records/s", baseline: median(without)).print()
        Figure(scenario: "notify", metric: "modify_overhead_ratio", value: median(with) / median(without), unit: "ratio").print()

        // Latency: listeners connect (courier tokens made now hear what happens next), then the writer writes at a steady rate.
        let env = try store.environment(subscribed, .development)
        for u in stride(from: 1, to: listeners, by: 2) {
            let token = "bench-courier-\(u)"
            try env.notifications.createCourierToken(token, user: Self.user(u), expiresAt: WallClock.nowMillis() + AccountStore.longSession)
            courierTokens[u] = token
        }
        let latencies = Latencies()
        let stop = StopFlag()
        let group = DispatchGroup()
        for u in 0..<listeners {
            let q = try auth(apiToken, Self.user(u))
            let courier = courierTokens[u]
            group.enter()
            Thread {
                defer { group.leave() }
                if let courier {
                    Self.pollCourier(port: port, token: courier, latencies: latencies, stop: stop)
                } else {
                    Self.readStream(port: port, query: q, latencies: latencies, stop: stop)
                }
            }.start()
        }
        try await Task.sleep(for: .seconds(1))
        let writer = try LoadClient(port: port)
        let base = "/database/1/\(subscribed.rawValue)/development/public/records/modify?\(writerWith)"
        let perRequest = max(1, rate / 50)
        let interval = Double(perRequest) / Double(rate)
        var rng = SplitMix(seed: 99)
        var written = 0
        let t0 = DispatchTime.now().uptimeNanoseconds
        var next = 0.0
        while Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9 < Double(seconds) {
            let sentAt = Self.nowMicros()
            let ops = (0..<perRequest).map { k -> String in
                let list = "L-\(Int(rng.next() % UInt64(users)))-\(Int(rng.next() % UInt64(perUser)))"
                return #"{"operationType":"create","record":{"recordName":"w\#(written + k)","recordType":"Item","fields":{"list":{"value":"\#(list)"},"sentAt":{"value":\#(sentAt)}}}}"#
            }
            let (status, _) = try writer.send(LoadClient.request("POST", base, body: Data(#"{"operations":[\#(ops.joined(separator: ","))]}"#.utf8)))
            guard status == 200 else { throw BenchFailure("records/modify answered \(status)") }
            written += perRequest
            next += interval
            let ahead = next - Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            if ahead > 0 { usleep(UInt32(ahead * 1e6)) }
        }
        let achieved = Double(written) / (Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        try await Task.sleep(for: .seconds(2))
        stop.set()
        let (sse, courier) = latencies.snapshot()
        let all = sse + courier
        guard !sse.isEmpty, !courier.isEmpty else { throw BenchFailure("no notification reached a listener (sse \(sse.count), courier \(courier.count))") }
        Figure(scenario: "notify", metric: "write_rate", value: achieved, unit: "records/s").print()
        Figure(scenario: "notify", metric: "notifications_received", value: Double(all.count), unit: "notifications").print()
        Figure(scenario: "notify", metric: "notify_latency_p50_ms", value: percentile(all, 0.5), unit: "ms").print()
        Figure(scenario: "notify", metric: "notify_latency_p99_ms", value: percentile(all, 0.99), unit: "ms").print()
        Figure(scenario: "notify", metric: "notify_latency_sse_p99_ms", value: percentile(sse, 0.99), unit: "ms").print()
        Figure(scenario: "notify", metric: "notify_latency_courier_p99_ms", value: percentile(courier, 0.99), unit: "ms").print()
        Figure(scenario: "notify", metric: "peak_rss_mb", value: peakRSSMegabytes(), unit: "MB").print()
        // Listener threads end with their next read (the server stops below and closes their connections).
        await app.stop()
        _ = group.wait(timeout: .now() + 40)
    }

    static func nowMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Every `"sentAt":N` in the bytes, as latencies (ms) from then to now.
    static func latencies(in bytes: [UInt8]) -> [Double] {
        let key = Array(#""sentAt":"#.utf8)
        let now = nowMicros()
        var out: [Double] = []
        var i = 0
        while i + key.count < bytes.count {
            if bytes[i] == key[0], Array(bytes[i..<i + key.count]) == key {
                var j = i + key.count
                var v: Int64 = 0
                while j < bytes.count, bytes[j] >= 48, bytes[j] <= 57 { v = v * 10 + Int64(bytes[j] - 48); j += 1 }
                if v > 0 { out.append(Double(now - v) / 1000) }
                i = j
            } else {
                i += 1
            }
        }
        return out
    }

    static func pollCourier(port: UInt16, token: String, latencies: Latencies, stop: StopFlag) {
        guard let client = try? LoadClient(port: port) else { return }
        let request = LoadClient.request("GET", "/-/webcourier/\(subscribed)/development/\(token)")
        while !stop.isSet {
            guard let (status, body) = try? client.send(request), status == 200 else { return }
            latencies.add(courier: Self.latencies(in: body))
        }
    }

    static func readStream(port: UInt16, query: String, latencies: Latencies, stop: StopFlag) {
        guard let client = try? LoadClient(port: port) else { return }
        let request = LoadClient.request("GET", "/database/1/\(subscribed)/development/notifications/stream?\(query)")
        client.stream(request, until: { stop.isSet }) { chunk in latencies.add(sse: Self.latencies(in: chunk)) }
    }

    final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    /// What listener threads measured, under a lock.
    final class Latencies: Sendable {
        private let state = Mutex<(sse: [Double], courier: [Double])>(([], []))
        func add(sse: [Double]) { if !sse.isEmpty { state.withLock { $0.sse += sse } } }
        func add(courier: [Double]) { if !courier.isEmpty { state.withLock { $0.courier += courier } } }
        func snapshot() -> ([Double], [Double]) { state.withLock { ($0.sse, $0.courier) } }
    }

    /// A local webhook receiver: counts deliveries, answers 204.
    final class Receiver: Sendable {
        private let received = Atomic<Int>(0)
        private let server = Mutex<HTTPServer?>(nil)
        var count: Int { received.load(ordering: .relaxed) }
        var port: UInt16 { server.withLock { $0?.port ?? 0 } }

        func start() async throws {
            var router = Router()
            router.add(.post, "/hook", bodyLimit: 1 << 20) { [self] req in
                if req.headers["x-stratus-signature"] != nil { self.received.add(1, ordering: .relaxed) }
                return HTTPResponse(status: .noContent)
            }
            var logger = Logger(label: "receiver")
            logger.logLevel = .warning
            let s = HTTPServer(config: HTTPServerConfig(port: 0), router: router, logger: logger)
            try await s.start()
            server.withLock { $0 = s }
        }

        func stop() async { await server.withLock { $0 }?.stop() }
    }
}

func percentile(_ xs: [Double], _ p: Double) -> Double {
    guard !xs.isEmpty else { return 0 }
    let s = xs.sorted()
    return s[min(s.count - 1, Int(Double(s.count) * p))]
}
