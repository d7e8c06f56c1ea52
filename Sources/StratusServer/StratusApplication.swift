import Foundation
import Logging
import StratusAPI
import StratusConsole
import StratusHTTP
import StratusModel
import StratusStore

/// The composition root: opens the store, builds the one route table, and runs the HTTP server.
/// `stratus serve` and the end-to-end tests build it the same way.
public final class StratusApplication: Sendable {
    public let config: ServerConfig
    public let store: RecordStore
    let server: HTTPServer
    let logger: Logger
    public let console: Console
    let webhooks: WebhookDeliverer

    public init(config: ServerConfig, logger: Logger = Logger(label: "stratus")) throws {
        self.config = config
        self.logger = logger
        if let mb = config.cacheMegabytes { CacheBudget.apply(megabytes: mb) }
        store = try RecordStore(dataDirectory: config.dataDirectory, durability: config.durability, quotaBytes: config.storageQuotaBytes,
                                notificationRetention: config.notificationRetention, autoIndexPolicy: config.autoIndexes)
        if config.demo { try DemoData.install(into: store) }
        var http = config.http
        http.host = config.host
        http.port = config.port
        let throttle = SignInThrottle(policy: config.signInThrottle)
        console = try Console(store: store, templatesDirectory: config.templatesDirectory, allowProductionUserData: config.allowProductionUserData,
                              throttle: throttle)
        var router = StratusApplication.routes(store: store, config: config, throttle: throttle)
        console.register(&router)
        server = HTTPServer(config: http, router: router, logger: logger, errorResponder: ErrorResponses.respond)
        webhooks = WebhookDeliverer(store: store, logger: logger, timeout: config.webhookTimeout)
    }

    static func routes(store: RecordStore, config: ServerConfig, throttle: SignInThrottle) -> Router {
        var router = Router()
        let files = StaticFiles(root: config.publicDirectory.path)
        router.add(.get, "/-/health") { _ in .json(Data("{\"status\":\"ok\"}".utf8)) }
        router.add(.get, "/-/static/*") { req in files.response(for: Array(req.pathSegments.dropFirst(2)), request: req) }
        router.add(.get, "/") { _ in .redirect(to: "/console/", status: .found) }
        CloudKitAPI(store: store, bodyLimit: config.apiBodyLimit, throttle: throttle, limits: config.apiLimits, courierHold: config.courierHold).register(&router)
        return router
    }

    public func start() async throws {
        try await server.start()
        webhooks.start()
    }

    public func stop() async {
        await webhooks.stop()
        store.bell.close()
        await server.stop()
        for env in store.openEnvironments() { try? env.saveCourierProgress() }
    }
    public var port: UInt16 { server.port }
    public var url: String { "http://\(config.host):\(port)/" }
}
