import Foundation
import StratusHTTP
import StratusStore
import StratusAPI

/// How to run Stratus: where its data, templates and static files live, and how it listens. Every default
/// is here, so `stratus serve` with no options and a test with `ServerConfig(port: 0, …)` build the same server.
public struct ServerConfig: Sendable {
    public var host: String
    public var port: UInt16
    public var dataDirectory: URL
    /// A PostgreSQL database (`postgres://…`) to keep everything in instead of `dataDirectory`: several servers on
    /// one database behave as one.
    public var databaseURL: String?
    /// Connections this server keeps open to PostgreSQL at most.
    public var databasePoolSize = 16
    public var templatesDirectory, publicDirectory: URL
    /// Create the demo container (once) before serving.
    public var demo: Bool
    /// Console admins may browse users' private and shared databases in Production (audited per view).
    public var allowProductionUserData: Bool
    /// The largest CloudKit API request body (`serve --api-body-limit`).
    public var apiBodyLimit: Int
    public var http: HTTPServerConfig
    /// `full` (default): an acknowledged write is on disk. `relaxed`: survives a process crash, not a power cut.
    public var durability: Durability = .full
    /// Each container environment's storage quota in bytes (`serve --storage-quota-mb`); nil for none.
    public var storageQuotaBytes: Int64? = nil
    /// What one user's data may take of each environment (`serve --user-storage-quota-mb`); nil: a tenth of
    /// `storageQuotaBytes`.
    public var userStorageQuotaBytes: Int64? = nil
    /// Faults, snapshots and restores of Production environments (admin endpoints and the console); off unless
    /// `serve --allow-production-admin`, since they reach real users' data.
    public var allowProductionAdmin = false
    /// `serve --require-two-factor`: every console administrator enrols a second factor before reaching any page.
    public var requireTwoFactor = false
    /// Notification retention, subscription caps and the notification log's budget per environment
    /// (`serve --notification-retention-days`, `--max-subscriptions-per-user`, `--max-subscriptions`,
    /// `--notification-log-mb`).
    public var notifications = NotificationPolicy()
    /// The memory budget of all SQLite page caches, in MB (`--cache-mb`); nil: `CacheBudget.defaultMegabytes`.
    public var cacheMegabytes: Int? = nil
    /// When environments build composite indexes for the query shapes they see (thresholds and caps:
    /// `AutoIndexPolicy`).
    public var autoIndexes = AutoIndexPolicy()
    /// CloudKit API request rates (`serve --api-rate-per-user`, `--api-rate-per-address`).
    public var apiLimits = APILimits()
    /// SSE streams and web courier polls open at once, per user and in all (`serve --max-listeners-per-user`,
    /// `--max-listeners`).
    public var listeners = NotificationListeners.Limits()
    /// How long a web courier poll waits for a notification before answering empty.
    public var courierHold: Duration = .seconds(30)
    /// A container environment nobody has used for this long, and nothing holds, is closed (its connections and
    /// caches given back); the next request opens it again.
    public var environmentIdleRelease: Duration = .seconds(600)
    /// How long a webhook receiver has to answer a delivery before it counts as failed (and is retried).
    public var webhookTimeout: TimeInterval = 10
    /// Sign-in throttling for the console and the CloudKit sign-in pages.
    public var signInThrottle: SignInThrottle.Policy = SignInThrottle.Policy()
    /// `GET /-/metrics` answers a request with `Authorization: Bearer <this>`; without one configured, only the
    /// loopback interface is answered.
    public var metricsToken: String? = nil
    /// `/-/admin/…` (faults) answers a request with `Authorization: Bearer <this>`; without one, it is off.
    public var adminToken: String? = nil
    /// Where APNs pushes go instead of Apple's hosts (`https://127.0.0.1:PORT`: a local stand-in for tests), and
    /// the certificate authority to trust for it instead of the system's.
    public var apnsEndpoint: String? = nil
    public var apnsCAFile: String? = nil

    /// A public URL as `scheme://host[:port]` (lowercased, no trailing slash), or nil if it is not one.
    public static func publicOrigin(_ text: String) -> String? {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("/") { t.removeLast() }
        guard let u = URL(string: t), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = u.host,
              u.path.isEmpty, u.query == nil, u.user == nil, !host.isEmpty else { return nil }
        return "\(scheme)://\(host.lowercased())" + (u.port.map { ":\($0)" } ?? "")
    }

    public init(host: String = "127.0.0.1", port: UInt16 = 8080, dataDirectory: URL = URL(fileURLWithPath: "./data"),
                templatesDirectory: URL = ResourceLocator.templates, publicDirectory: URL = ResourceLocator.publicFiles,
                demo: Bool = false, allowProductionUserData: Bool = false, apiBodyLimit: Int = 16 * 1024 * 1024,
                http: HTTPServerConfig = HTTPServerConfig()) {
        self.apiBodyLimit = apiBodyLimit
        self.allowProductionUserData = allowProductionUserData
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.templatesDirectory = templatesDirectory
        self.publicDirectory = publicDirectory
        self.demo = demo
        self.http = http
    }

    /// The HTTP server's settings as served: `http` with the address to listen on, and a second connection worker
    /// per core on PostgreSQL, where every storage call of a request waits for a round trip (see
    /// `HTTPServerConfig.workersPerCore`).
    var served: HTTPServerConfig {
        var served = http
        served.host = host
        served.port = port
        if databaseURL != nil { served.workersPerCore = 2 }
        return served
    }
}
