import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import StratusHTTP
import StratusModel
import StratusStore
import Synchronization

/// Delivers queued webhook notifications: a loop apart from every request, so a slow or dead receiver never holds
/// up a write. Each delivery is POSTed as JSON with `X-Stratus-Signature: sha256=<hex HMAC of the body>` and
/// `X-Stratus-Delivery: <notificationID>`; a 2xx answer delivers it, anything else (or no answer within the
/// timeout) is retried with backoff by the store's rules. Delivery is at least once: receivers deduplicate on the id.
final class WebhookDeliverer: Sendable {
    let store: ServerStore
    let logger: Logger
    let timeout: TimeInterval
    private let loop = BackgroundWork("webhook deliverer")
    /// Deliveries under way, and outcomes not yet recorded, by environment.
    private let inFlight = Mutex<(ids: Set<Int64>, done: [ObjectIdentifier: (EnvironmentStore, [Outcome])])>(([], [:]))
    private let session: URLSession
    /// Plain-HTTP receivers: kept-alive sockets, far faster than URLSession (which serves https).
    private let poster: PlainHTTPPoster
    /// Delivery attempts since the start, by container and environment: (answered 2xx, failed).
    private let attempts = Mutex<[EnvironmentKey: (succeeded: Int, failed: Int)]>([:])

    struct EnvironmentKey: Hashable {
        var container, environment: String
    }

    /// Delivery attempts since the start, per container environment (the server's `/-/metrics`).
    func attemptCounts() -> [EnvironmentKey: (succeeded: Int, failed: Int)] { attempts.withLock { $0 } }

    init(store: ServerStore, logger: Logger, timeout: TimeInterval = 10) {
        self.store = store
        self.logger = logger
        self.timeout = timeout
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = timeout
        config.httpMaximumConnectionsPerHost = 16
        session = URLSession(configuration: config)
        poster = PlainHTTPPoster(timeout: timeout)
    }

    /// Opens every environment first (after a restart, deliveries queued before it sit in environments nothing has
    /// opened yet), then starts the loop. It returns once they are open, so what the server does next (releasing the
    /// idle ones among them) never races the opening.
    func start() async {
        let store = self.store
        _ = try? await BlockingWork.shared.run {
            for c in try store.containers() { for e in ContainerEnvironment.allCases { _ = try store.environment(c.id, e) } }
        }
        let deliverer = self
        loop.start { await deliverer.run() }
    }

    func stop() async { await loop.stop() }

    private func run() async {
        let store = self.store
        // Deliveries run on their own; each pass records the outcomes that came in (one write per environment)
        // and starts what is newly due. A receiver that never answers holds only its own deliveries, for the timeout.
        while !Task.isCancelled {
            let rung = store.bell.rings(NotificationBell.webhooks)
            let finished = self.inFlight.withLock { s in
                defer { s.done.removeAll() }
                return s.done
            }
            for (env, list) in finished.values {
                _ = try? await BlockingWork.shared.run { try env.webhooks.recordWebhookAttempts(list) }
                self.inFlight.withLock { s in for o in list { s.ids.remove(o.delivery.id) } }
            }
            var due = await dueDeliveries()
            due = self.inFlight.withLock { s in
                let fresh = due.filter { !s.ids.contains($0.1.id) }
                for (_, d) in fresh { s.ids.insert(d.id) }
                return fresh
            }
            for (env, d) in due {
                Task {
                    let outcome = await self.deliver(d)
                    self.attempts.withLock { a in
                        let key = EnvironmentKey(container: env.container.rawValue,
                                                 environment: env.environment.rawValue)
                        var c = a[key] ?? (0, 0)
                        if outcome.succeeded { c.succeeded += 1 } else { c.failed += 1 }
                        a[key] = c
                    }
                    self.inFlight.withLock { $0.done[ObjectIdentifier(env), default: (env, [])].1.append(outcome) }
                    store.bell.ring([NotificationBell.webhooks])
                }
            }
            // Nothing of a pass is held while it waits: an environment nobody uses can be closed meanwhile.
            let idle = due.isEmpty && finished.isEmpty
            due = []
            if idle { await store.bell.wait(NotificationBell.webhooks, since: rung, timeout: .seconds(1)) }
        }
    }

    /// Deliveries due now in the open environments. Most environments have no webhook, and say so from memory: no
    /// database work for them on a pass.
    private func dueDeliveries() async -> [(EnvironmentStore, WebhookStore.WebhookDelivery)] {
        let busy = inFlight.withLock { $0.ids.count >= 512 }
        let candidates = busy ? [] : store.openEnvironments().filter { $0.webhooks.knownWebhookPresence != false }
        guard !candidates.isEmpty else { return [] }
        return (try? await BlockingWork.shared.run {
            try candidates.filter { try $0.webhooks.hasWebhooks() }.flatMap { env in try env.webhooks.dueWebhookDeliveries().map { (env, $0) } }
        }) ?? []
    }

    typealias Outcome = (delivery: WebhookStore.WebhookDelivery, status: String, succeeded: Bool)

    private func deliver(_ d: WebhookStore.WebhookDelivery) async -> Outcome {
        guard let url = URL(string: d.url) else { return (d, "invalid URL", false) }
        let body = Data(d.payload.utf8)
        let headers = [("Content-Type", "application/json"), ("X-Stratus-Signature", Secrets.webhookSignature(body,
                secret: d.secret)),
                       ("X-Stratus-Delivery", d.notificationID), ("User-Agent", "Stratus-Webhook/1")]
        let status: String
        let ok: Bool
        if url.scheme?.lowercased() == "http" {
            switch await poster.post(url, body: body, headers: headers) {
            case .success(let code):
                status = "HTTP \(code)"
                ok = (200..<300).contains(code)
            case .failure(let e):
                status = "no answer: \(e.description.prefix(200))"
                ok = false
            }
        } else {
            var req = URLRequest(url: url, timeoutInterval: timeout)
            req.httpMethod = "POST"
            req.httpBody = body
            for (k, v) in headers { req.setValue(v, forHTTPHeaderField: k) }
            do {
                let (_, response) = try await session.data(for: req)
                let code = (response as? HTTPURLResponse)?.statusCode ?? 0
                status = "HTTP \(code)"
                ok = (200..<300).contains(code)
            } catch {
                status = "no answer: \(String(describing: error).prefix(200))"
                ok = false
            }
        }
        if !ok { logger.warning("webhook delivery failed", metadata: ["webhook": "\(d.webhookID)",
                                                                      "delivery": "\(d.notificationID)",
                "status": "\(status)"]) }
        return (d, status, ok)
    }
}
