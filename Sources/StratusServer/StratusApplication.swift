import Foundation
import Logging
import Synchronization
import StratusAPI
import StratusConsole
import StratusHTTP
import StratusModel
import StratusPush
import StratusStore
import StratusTemplates

/// The composition root: opens the store, builds the one route table, and runs the HTTP server.
/// `stratus serve` and the end-to-end tests build it the same way.
public final class StratusApplication: Sendable {
    public let config: ServerConfig
    public let store: ServerStore
    let server: HTTPServer
    let logger: Logger
    public let console: Console
    let webhooks: WebhookDeliverer
    let apns: APNsDeliverer
    let metrics: ServerMetrics
    /// The CloudKit API's requests, for the console's Logs page.
    public let requestLog: RequestLog
    /// Requests, errors, latency, records and storage over time, for the console's Telemetry page.
    public let telemetry: Telemetry
    let sampler: TelemetrySampler
    let shapes: QueryShapeKeeper
    /// Closes environments nobody has used for `ServerConfig.environmentIdleRelease`.
    let releaser = BackgroundWork("environment releaser")
    /// Drops uploads no record attached in time and the content nothing references (see `AssetStore.tendUploads`).
    let assetCollector = BackgroundWork("asset collector")
    /// The demo's secrets (users' passwords, an API token), when `--demo` installed it on this start: printed once.
    public let demoInstall: DemoInstall?
    /// The SSE streams and web courier polls open now.
    public let listeners: NotificationListeners
    /// Set by the first `stop()`: stopping is done once (a test's teardown may stop a server the test stopped).
    private let stopped = Mutex(false)

    /// Opens the application on a blocking thread: opening the store, installing the demo and reading templates wait
    /// on the disk, and a cooperative thread doing that is one of the few (two on a 2-core machine) that every server's
    /// accept loop in the process needs. Async callers — `serve`, the benchmarks, the tests — open it this way.
    public static func open(config: ServerConfig,
                            logger: Logger = Logger(label: "stratus")) async throws -> StratusApplication {
        try await BlockingWork.shared.run { try StratusApplication(config: config, logger: logger) }
    }

    /// Builds the application synchronously, blocking the calling thread; prefer `open(config:logger:)` from async
    /// code.
    public init(config: ServerConfig, logger: Logger = Logger(label: "stratus")) throws {
        self.config = config
        self.logger = logger
        if let mb = config.cacheMegabytes { CacheBudget.apply(megabytes: mb) }
        if let url = config.databaseURL {
            store = try ServerStore(databaseURL: url, quotaBytes: config.storageQuotaBytes,
                                    userQuotaBytes: config.userStorageQuotaBytes, notifications: config.notifications,
                                    autoIndexPolicy: config.autoIndexes, poolSize: config.databasePoolSize)
        } else {
            store = try ServerStore(dataDirectory: config.dataDirectory, durability: config.durability,
                                    quotaBytes: config.storageQuotaBytes,
                                    userQuotaBytes: config.userStorageQuotaBytes,
                                    notifications: config.notifications, autoIndexPolicy: config.autoIndexes)
        }
        demoInstall = config.demo ? try DemoData.install(into: store) : nil
        let throttle = SignInThrottle(policy: config.signInThrottle)
        let requestLog = try store.openRequestLog()
        self.requestLog = requestLog
        let telemetry = try store.openTelemetry()
        self.telemetry = telemetry
        if let demoInstall { DemoData.generateActivity(requestLog: requestLog, telemetry: telemetry,
                                                       users: demoInstall.users, store: store) }
        sampler = TelemetrySampler(store: store, telemetry: telemetry)
        shapes = QueryShapeKeeper(store: store)
        console = try Console(store: store, templatesDirectory: config.templatesDirectory,
                              allowProductionUserData: config.allowProductionUserData,
                              allowProductionAdmin: config.allowProductionAdmin,
                              requireTwoFactor: config.requireTwoFactor, publicURL: config.http.publicURL,
                              throttle: throttle, requestLog: requestLog,
                              telemetry: telemetry,
                              demo: config.demo ? DemoData.container : nil)
        let metrics = ServerMetrics(store: store)
        self.metrics = metrics
        let listeners = NotificationListeners(limits: config.listeners)
        self.listeners = listeners
        let api = CloudKitAPI(store: store, templates: console.library, bodyLimit: config.apiBodyLimit,
                              throttle: throttle, limits: config.apiLimits, courierHold: config.courierHold,
                              listeners: listeners, publicURL: config.http.publicURL)
        let router = RouteTable.build(config: config, api: api, console: console, admin: AdminEndpoints(store: store,
                token: config.adminToken, allowProduction: config.allowProductionAdmin), metrics: metrics)
        server = HTTPServer(config: config.served, router: router, logger: logger, observe: { record in
            metrics.observe(record)
            if let entry = StratusApplication.logEntry(record) {
                requestLog.append(entry)
                telemetry.record(entry)
            }
        })
        metrics.countConnections({ [server] in server.connectionFigures },
                                 answers: { [server] in server.answers.figures })
        metrics.countListenersAndBodies(listeners: { listeners.count },
                                        bodyBytes: { [server] in server.bufferedBodyBytes })
        webhooks = WebhookDeliverer(store: store, logger: logger, timeout: config.webhookTimeout)
        metrics.countWebhookAttempts { [webhooks] in webhooks.attemptCounts() }
        apns = APNsDeliverer(store: store, logger: logger, client: APNsClient(endpoint: config.apnsEndpoint,
                caFile: config.apnsCAFile))
        metrics.countAPNsPushes { [apns] in apns.pushCounts() }
    }

    /// A CloudKit API request as the request log keeps it (nil for every other route).
    static func logEntry(_ r: RequestRecord) -> RequestLogEntry? {
        guard r.route.hasPrefix("/database/1/"), let container = r.parameters["container"], let environment = r.parameters["environment"] else { return nil }
        return RequestLogEntry(at: WallClock.nowMillis(), container: container, environment: environment,
                               operation: CloudKitAPI.operationName(route: r.route, parameters: r.parameters) ?? "",
                               database: r.parameters["database"] ?? "", user: r.response.annotations["user"], status: r.status,
                               errorCode: r.response.annotations["errorCode"] ?? r.response.annotations["fault"].flatMap { $0 == Fault.Kind.networkDrop.rawValue ? $0 : nil },
                               durationMicroseconds: Int(r.seconds * 1_000_000), uuid: r.response.annotations["uuid"], injected: r.response.annotations["fault"] != nil)
    }

    public func start() async throws {
        if !store.loosened.isEmpty {
            logger.warning("the data directory was readable by others: made \(store.loosened.count) of its files and directories private (0700 directories, 0600 files)",
                           metadata: ["paths": "\(store.loosened.prefix(10).joined(separator: ", "))"])
        }
        try await server.start()
        await webhooks.start()
        apns.start()
        sampler.start()
        shapes.start()
        let (store, idle) = (store, config.environmentIdleRelease)
        releaser.repeating(every: min(.seconds(60), idle / 2), immediately: false) {
            _ = try? await BlockingWork.shared.run { store.releaseIdleEnvironments(after: idle) }
        }
        assetCollector.repeating(every: .seconds(60), immediately: false) {
            _ = try? await BlockingWork.shared.run { for env in store.openEnvironments() { _ = try? env.assets.tendUploads() } }
        }
    }

    public func stop() async {
        guard stopped.withLock({ s in defer { s = true }; return !s }) else { return }
        await webhooks.stop()
        await apns.stop()
        await shapes.stop()
        await releaser.stop()
        await assetCollector.stop()
        store.bell.close()
        await server.stop()
        await sampler.stop()
        // The last writes and the closing wait for work still inside the databases (up to 30 s, see GatedDatabase):
        // on a thread of their own, never one of Swift's few cooperative threads, which every other server of the
        // process (a test run holds dozens) needs to answer at all.
        let (requestLog, telemetry, store) = (self.requestLog, self.telemetry, self.store)
        let closing = BackgroundWork("closing the store")
        closing.once {
            requestLog.stop()
            telemetry.stop()
            for env in store.openEnvironments() { try? env.notifications.saveCourierProgress() }
            store.close()
        }
        await closing.stop()
    }
    /// Takes telemetry's records-and-storage sample now (the server does it every minute).
    public func sampleTelemetry() { TelemetrySampler.sample(store, telemetry) }

    public var port: UInt16 { server.port }
    /// Connections open now, their limits and what was refused (see `ConnectionBudget`).
    public var openConnections: Int { server.openConnections }
    public var connectionFigures: ConnectionFigures { server.connectionFigures }
    /// What answers waiting to be sent hold, in memory and in spool files (see `AnswerBudget`).
    public var answerFigures: (memory: Int, spooled: Int, refused: Int) { server.answers.figures }
    /// The route table the server answers with (the fuzzer matches paths against it).
    package var router: Router { server.router }
    /// Request body bytes the server holds in memory now, across connections.
    public var bufferedBodyBytes: Int { server.bufferedBodyBytes }
    public var url: String { "http://\(config.host):\(port)/" }
}
