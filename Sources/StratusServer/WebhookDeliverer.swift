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
    let store: RecordStore
    let logger: Logger
    let timeout: TimeInterval
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let session: URLSession

    init(store: RecordStore, logger: Logger, timeout: TimeInterval = 10) {
        self.store = store
        self.logger = logger
        self.timeout = timeout
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = timeout
        config.httpMaximumConnectionsPerHost = 16
        session = URLSession(configuration: config)
    }

    func start() {
        let deliverer = self
        task.withLock { $0 = Task.detached { await deliverer.run() } }
    }

    func stop() async {
        let t = task.withLock { t -> Task<Void, Never>? in defer { t = nil }; return t }
        t?.cancel()
        await t?.value
    }

    private func run() async {
        let store = self.store
        // After a restart, deliveries queued before it sit in environments nothing has opened yet.
        _ = try? await BlockingWork.shared.run {
            for c in try store.containers() { for e in Environment.allCases { _ = try store.environment(c.id, e) } }
        }
        while !Task.isCancelled {
            // Most environments have no webhook, and say so from memory: no database work for them on a tick.
            let rung = store.bell.rings(NotificationBell.webhooks)
            let candidates = store.openEnvironments().filter { $0.knownWebhookPresence != false }
            var due: [(EnvironmentStore, EnvironmentStore.WebhookDelivery)] = []
            if !candidates.isEmpty {
                due = (try? await BlockingWork.shared.run {
                    try candidates.filter { try $0.hasWebhooks() }.flatMap { env in try env.dueWebhookDeliveries().map { (env, $0) } }
                }) ?? []
            }
            // Every due delivery at once; then each environment's outcomes in one write.
            let outcomes = await withTaskGroup(of: (EnvironmentStore, Outcome).self) { group in
                for (env, d) in due { group.addTask { (env, await self.deliver(d)) } }
                return await group.reduce(into: [ObjectIdentifier: (EnvironmentStore, [Outcome])]()) { acc, r in
                    acc[ObjectIdentifier(r.0), default: (r.0, [])].1.append(r.1)
                }
            }
            for (env, list) in outcomes.values {
                _ = try? await BlockingWork.shared.run { try env.recordWebhookAttempts(list) }
            }
            if due.isEmpty { await store.bell.wait(NotificationBell.webhooks, since: rung, timeout: .seconds(1)) }
        }
    }

    typealias Outcome = (delivery: EnvironmentStore.WebhookDelivery, status: String, succeeded: Bool)

    private func deliver(_ d: EnvironmentStore.WebhookDelivery) async -> Outcome {
        guard let url = URL(string: d.url) else { return (d, "invalid URL", false) }
        let body = Data(d.payload.utf8)
        var req = URLRequest(url: url, timeoutInterval: timeout)
        req.httpMethod = "POST"
        req.httpBody = body
        req.setValue("application/json", forHTTPHeaderField: "Content-Type")
        req.setValue(Secrets.webhookSignature(body, secret: d.secret), forHTTPHeaderField: "X-Stratus-Signature")
        req.setValue(d.notificationID, forHTTPHeaderField: "X-Stratus-Delivery")
        req.setValue("Stratus-Webhook/1", forHTTPHeaderField: "User-Agent")
        let status: String
        let ok: Bool
        do {
            let (_, response) = try await session.data(for: req)
            let code = (response as? HTTPURLResponse)?.statusCode ?? 0
            status = "HTTP \(code)"
            ok = (200..<300).contains(code)
        } catch {
            status = "no answer: \(String(describing: error).prefix(200))"
            ok = false
        }
        if !ok { logger.warning("webhook delivery failed", metadata: ["webhook": "\(d.webhookID)", "delivery": "\(d.notificationID)", "status": "\(status)"]) }
        return (d, status, ok)
    }
}
