import Foundation
import StratusHTTP
import StratusModel
import StratusStore
import Synchronization

/// What `GET /-/metrics` exposes, in Prometheus' text format (0.0.4), written by hand: swift-metrics' Prometheus
/// exporters on the mirror pull in SwiftNIO. Requests are counted as they are answered (by route pattern, method,
/// status and container) with a latency histogram per route; records, storage, connections and memory are read at
/// scrape time.
public final class ServerMetrics: Sendable {
    /// Latency buckets (seconds): a cached lookup is under a millisecond, a cold 1M-record query tens.
    static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Distinct container labels kept; past it a request counts under `other` (clients name containers in URLs).
    static let maximumContainers = 200

    struct RequestKey: Hashable { var route: String, method: String, status: Int, container: String }
    struct Histogram {
        var counts: [Int]
        var sum = 0.0
        var count = 0

        /// Counts one observation into the first bucket whose bound it does not pass.
        mutating func add(_ seconds: Double, buckets: [Double]) {
            if let i = buckets.firstIndex(where: { seconds <= $0 }) { counts[i] += 1 }
            sum += seconds
            count += 1
        }

        /// Adds another part's counts of the same route.
        mutating func add(_ other: Histogram) {
            for i in counts.indices { counts[i] += other.counts[i] }
            sum += other.sum
            count += other.count
        }
    }
    struct State {
        var requests: [RequestKey: Int] = [:]
        var latency: [String: Histogram] = [:]
        /// The container labels this part has seen admitted (see `admitted`).
        var containers: Set<String> = []

        mutating func add(_ other: State) {
            for (k, n) in other.requests { requests[k, default: 0] += n }
            for (route, h) in other.latency {
                latency[route, default: Histogram(counts: Array(repeating: 0, count: ServerMetrics.buckets.count))].add(h)
            }
        }
    }

    /// What requests add up to, in parts by thread (see `ThreadShards`): every request counts itself here.
    private let state = ThreadShards { State() }
    /// The container labels given out, at most `maximumContainers` across every part.
    private let admitted = Mutex<Set<String>>([])
    private let connections = Mutex<@Sendable () -> ConnectionFigures?>({ nil })
    private let answers = Mutex<@Sendable () -> (memory: Int, spooled: Int, refused: Int)>({ (0, 0, 0) })
    private let held = Mutex<(@Sendable () -> Int, @Sendable () -> Int)>(({ 0 }, { 0 }))
    private let webhookAttempts = Mutex<@Sendable () -> [WebhookDeliverer.EnvironmentKey: (succeeded: Int,
            failed: Int)]>({ [:] })
    private let apnsPushes = Mutex<@Sendable () -> [String: Int]>({ [:] })
    let store: ServerStore

    init(store: ServerStore) { self.store = store }

    /// The server's connections and what its answers hold (see `ConnectionBudget`, `AnswerBudget`).
    func countConnections(_ figures: @escaping @Sendable () -> ConnectionFigures?,
                          answers held: @escaping @Sendable () -> (memory: Int, spooled: Int, refused: Int)) {
        connections.withLock { $0 = figures }
        answers.withLock { $0 = held }
    }

    /// The open notification listeners and the request body bytes held (see `NotificationListeners`, `BodyBudget`).
    func countListenersAndBodies(listeners: @escaping @Sendable () -> Int, bodyBytes: @escaping @Sendable () -> Int) {
        held.withLock { $0 = (listeners, bodyBytes) }
    }

    func countWebhookAttempts(_ count: @escaping @Sendable () -> [WebhookDeliverer.EnvironmentKey: (succeeded: Int,
            failed: Int)]) {
        webhookAttempts.withLock { $0 = count }
    }

    /// Pushes to APNs by `container\u{0}environment\u{0}state` (see `APNsDeliverer.pushCounts`).
    func countAPNsPushes(_ count: @escaping @Sendable () -> [String: Int]) { apnsPushes.withLock { $0 = count } }

    func observe(_ r: RequestRecord) {
        // Each CloudKit operation is its own route; what the catch-all under /database/1 got is one label, not a
        // label per made-up path.
        let route = r.route
        state.withLock { s in
            var container = r.parameters["container"] ?? ""
            if !container.isEmpty && !s.containers.contains(container) {
                let admit = self.admitted.withLock { a in
                    if a.contains(container) { return true }
                    guard a.count < Self.maximumContainers else { return false }
                    a.insert(container)
                    return true
                }
                if admit { s.containers.insert(container) } else { container = "other" }
            }
            s.requests[RequestKey(route: route, method: r.method.rawValue, status: r.status, container: container),
                       default: 0] += 1
            // Changed in place: a copy taken out and written back copied its bucket array on every request.
            s.latency[route, default: Histogram(counts: Array(repeating: 0, count: Self.buckets.count))].add(r.seconds,
                    buckets: Self.buckets)
        }
    }

    /// The exposition text.
    func render() -> String {
        var s = State()
        state.forEach { s.add($0) }
        return Self.http(s) + storeMetrics() + deliveryMetrics() + processMetrics()
    }

    /// Requests answered and their latency, by route pattern.
    private static func http(_ s: State) -> String {
        var out = ""
        out += "# HELP stratus_http_requests_total Requests answered, by route pattern, method, status and container.\n"
        out += "# TYPE stratus_http_requests_total counter\n"
        for (k, n) in s.requests.sorted(by: { ($0.key.route, $0.key.status, $0.key.container) < ($1.key.route,
                $1.key.status, $1.key.container) }) {
            out += "stratus_http_requests_total{route=\"\(Self.label(k.route))\",method=\"\(k.method)\",status=\"\(k.status)\",container=\"\(Self.label(k.container))\"} \(n)\n"
        }
        out += "# HELP stratus_http_request_duration_seconds Time from a request's first byte to its response sent, by route pattern.\n"
        out += "# TYPE stratus_http_request_duration_seconds histogram\n"
        for (route, h) in s.latency.sorted(by: { $0.key < $1.key }) {
            var cumulative = 0
            for (i, le) in Self.buckets.enumerated() {
                cumulative += h.counts[i]
                out += "stratus_http_request_duration_seconds_bucket{route=\"\(Self.label(route))\",le=\"\(le)\"} \(cumulative)\n"
            }
            out += "stratus_http_request_duration_seconds_bucket{route=\"\(Self.label(route))\",le=\"+Inf\"} \(h.count)\n"
            out += "stratus_http_request_duration_seconds_sum{route=\"\(Self.label(route))\"} \(h.sum)\n"
            out += "stratus_http_request_duration_seconds_count{route=\"\(Self.label(route))\"} \(h.count)\n"
        }
        return out
    }

    /// What each container environment stores, and its notifications since the start.
    private func storeMetrics() -> String {
        var out = ""
        out += "# HELP stratus_records Records stored, by container and environment.\n# TYPE stratus_records gauge\n"
        var bytes = "", notifications = "", queued = "", evicted = ""
        // The environments open now: a scrape opens none (an idle one is closed after a while, see
        // `ServerConfig.environmentIdleRelease`, and its series come back when it is used again).
        let open = store.openEnvironments().sorted { ($0.container.rawValue,
                                                      $0.environment.rawValue) < ($1.container.rawValue,
                $1.environment.rawValue) }
        for e in open {
            let labels = "container=\"\(Self.label(e.container.rawValue))\",environment=\"\(e.environment.rawValue)\""
            if let n = try? e.records.recordCount() { out += "stratus_records{\(labels)} \(n)\n" }
            notifications += "stratus_notifications_total{\(labels)} \(e.notifications.notificationCounter.notifications)\n"
            queued += "stratus_webhook_deliveries_queued_total{\(labels)} \(e.notifications.notificationCounter.webhooks)\n"
            evicted += "stratus_notifications_evicted_total{\(labels)} \(e.notifications.notificationCounter.evicted)\n"
            if let u = try? e.quota.storageUsage() {
                bytes += "stratus_storage_bytes{\(labels),kind=\"records\"} \(u.recordBytes)\n"
                bytes += "stratus_storage_bytes{\(labels),kind=\"assets\"} \(u.assetBytes)\n"
            }
        }
        out += "# HELP stratus_open_environments Container environments open now (an unused one is closed after a while).\n"
        out += "# TYPE stratus_open_environments gauge\nstratus_open_environments \(open.count)\n"
        out += "# HELP stratus_storage_bytes Bytes stored, by container, environment and kind.\n# TYPE stratus_storage_bytes gauge\n" + bytes
        out += "# HELP stratus_notifications_total Notifications created for subscriptions since the start, by container and environment.\n"
        out += "# TYPE stratus_notifications_total counter\n" + notifications
        out += "# HELP stratus_notifications_evicted_total Notifications the log's budgets dropped before they were read (a recipient's share, or the whole log's), since the start, by container and environment.\n"
        out += "# TYPE stratus_notifications_evicted_total counter\n" + evicted
        out += "# HELP stratus_webhook_deliveries_queued_total Webhook deliveries queued since the start, by container and environment.\n"
        out += "# TYPE stratus_webhook_deliveries_queued_total counter\n" + queued
        return out
    }

    /// Webhook delivery attempts and APNs pushes since the start.
    private func deliveryMetrics() -> String {
        var out = ""
        out += "# HELP stratus_webhook_delivery_attempts_total Webhook delivery attempts since the start, by container, environment and outcome.\n"
        out += "# TYPE stratus_webhook_delivery_attempts_total counter\n"
        for (k, c) in webhookAttempts.withLock({ $0 })().sorted(by: { ($0.key.container,
                                                                       $0.key.environment) < ($1.key.container,
                $1.key.environment) }) {
            let labels = "container=\"\(Self.label(k.container))\",environment=\"\(k.environment)\""
            out += "stratus_webhook_delivery_attempts_total{\(labels),outcome=\"delivered\"} \(c.succeeded)\n"
            out += "stratus_webhook_delivery_attempts_total{\(labels),outcome=\"failed\"} \(c.failed)\n"
        }
        out += "# HELP stratus_apns_pushes_total Pushes to APNs since the start, by container, environment and outcome (sent, retrying, failed, unregistered).\n"
        out += "# TYPE stratus_apns_pushes_total counter\n"
        for (k, n) in apnsPushes.withLock({ $0 })().sorted(by: { $0.key < $1.key }) {
            let parts = k.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else { continue }
            out += "stratus_apns_pushes_total{container=\"\(Self.label(parts[0]))\",environment=\"\(parts[1])\",outcome=\"\(parts[2])\"} \(n)\n"
        }
        return out
    }

    /// Connections, listeners, buffered bodies and memory now.
    private func processMetrics() -> String {
        var out = ""
        let c = connections.withLock { $0 }() ?? .none
        out += "# HELP stratus_open_connections HTTP connections open now.\n# TYPE stratus_open_connections gauge\n"
        out += "stratus_open_connections \(c.open)\n"
        out += "# HELP stratus_connection_limit Connections the server holds at most, in all (kept below its descriptor limit) and from one client address.\n"
        out += "# TYPE stratus_connection_limit gauge\n"
        out += "stratus_connection_limit{scope=\"total\"} \(c.limit)\nstratus_connection_limit{scope=\"address\"} \(c.perAddress)\n"
        out += "# HELP stratus_connections_refused_total Connections answered 503 and closed at once since the start, by the limit they met.\n"
        out += "# TYPE stratus_connections_refused_total counter\n"
        out += "stratus_connections_refused_total{limit=\"total\"} \(c.refusedForTotal)\nstratus_connections_refused_total{limit=\"address\"} \(c.refusedForAddress)\n"
        out += "# HELP stratus_connections_evicted_total Idle connections closed to make room for new ones at the total since the start.\n"
        out += "# TYPE stratus_connections_evicted_total counter\nstratus_connections_evicted_total \(c.evicted)\n"
        let a = answers.withLock { $0 }()
        out += "# HELP stratus_answer_bytes Bytes of answers waiting to be sent, in memory and in spool files.\n# TYPE stratus_answer_bytes gauge\n"
        out += "stratus_answer_bytes{held=\"memory\"} \(a.memory)\nstratus_answer_bytes{held=\"spool\"} \(a.spooled)\n"
        out += "# HELP stratus_answers_refused_total Answers refused (503) for want of spool room since the start.\n"
        out += "# TYPE stratus_answers_refused_total counter\nstratus_answers_refused_total \(a.refused)\n"
        let (listeners, bodies) = held.withLock { $0 }
        out += "# HELP stratus_notification_listeners SSE streams and web courier polls open now.\n# TYPE stratus_notification_listeners gauge\n"
        out += "stratus_notification_listeners \(listeners())\n"
        out += "# HELP stratus_buffered_body_bytes Request body bytes held in memory now.\n# TYPE stratus_buffered_body_bytes gauge\n"
        out += "stratus_buffered_body_bytes \(bodies())\n"
        out += "# HELP stratus_process_resident_bytes The server process's resident memory.\n# TYPE stratus_process_resident_bytes gauge\n"
        out += "stratus_process_resident_bytes \(Self.residentBytes())\n"
        out += "# HELP stratus_background_work Work running apart from requests now (flushers, deliverers, index builds, imports), by name.\n"
        out += "# TYPE stratus_background_work gauge\n"
        for (name, n) in BackgroundWork.running.sorted(by: { $0.key < $1.key }) { out += "stratus_background_work{name=\"\(Self.label(name))\"} \(n)\n" }
        return out
    }

    /// A label value escaped as the format asks (backslash, quote, newline).
    static func label(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"",
                with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }

    static func residentBytes() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8), let m = s.firstMatch(of: /VmRSS:\s+(\d+) kB/), let kb = Int(m.1) else { return 0 }
        return kb * 1024
    }
}
