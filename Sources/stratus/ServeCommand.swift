import ArgumentParser
import Foundation
import Logging
import StratusHTTP
import StratusServer
import StratusAPI
import StratusStore

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the Stratus server.")
    @Option(help: "The address to listen on.") var host: String = "127.0.0.1"
    @Option(help: "The port to listen on (0 picks a free one).") var port: UInt16 = 8080
    @Option(help: "The data directory.") var data: String = "./data"
    @Option(name: .long, help: ArgumentHelp("A PostgreSQL database to keep everything in instead of --data; several servers on one database behave as one (default: $STRATUS_DATABASE_URL).",
                                            valueName: "url"))
    var databaseURL: String?
    @Option(help: "Connections to PostgreSQL this server keeps open at most (with --database-url).") var databasePoolSize: Int = 16
    @Option(help: "The console's templates (default: found beside the executable).") var templates: String?
    @Option(help: "The console's static files (default: found beside the executable).") var `public`: String?
    @Option(help: "full (default): an acknowledged write is on disk. relaxed: survives a crash of the process, but a power cut or OS crash can lose the last acknowledged writes (for CI and laptops).")
    var durability: String = "full"
    @Flag(help: "Create a demo container with records (once).") var demo = false
    @Option(help: "The largest CloudKit API request body, in bytes (larger ones get 413 before they are read).")
    var apiBodyLimit: Int = 16 * 1024 * 1024
    @Option(help: "Request body bytes held in memory at once across all connections, in MB; a body that does not fit gets 503 and Retry-After before it is read.")
    var maxBufferedBodyMb: Int = HTTPServerConfig().maxBufferedBodyBytes >> 20

    func validate() throws {
        guard apiBodyLimit >= 64 * 1024 else { throw ValidationError("--api-body-limit must be at least 65536 bytes") }
        guard maxBufferedBodyMb >= 64, maxBufferedBodyMb <= 1 << 20 else { throw ValidationError("--max-buffered-body-mb is between 64 and 1048576 (the console takes 64 MB imports)") }
        guard notificationRetentionDays > 0, notificationRetentionDays <= 3650 else { throw ValidationError("--notification-retention-days is between 0 and 3650") }
        guard changeTokenRetentionDays >= 0, changeTokenRetentionDays <= 36500 else { throw ValidationError("--change-token-retention-days is between 0 (no limit) and 36500") }
        guard maxSubscriptionsPerUser >= 1, maxSubscriptions >= 1 else { throw ValidationError("--max-subscriptions-per-user and --max-subscriptions are at least 1") }
        guard signUpsPerAddressPerHour > 0, signUpsPerSecond > 0 else { throw ValidationError("--sign-ups-per-address-per-hour and --sign-ups-per-second are above 0") }
        guard maxListenersPerUser >= 1, maxListeners >= 1 else { throw ValidationError("--max-listeners-per-user and --max-listeners are at least 1") }
        guard notificationLogMb >= 1, notificationLogMb <= 1 << 20 else { throw ValidationError("--notification-log-mb is between 1 and 1048576") }
        if let userStorageQuotaMb, userStorageQuotaMb < 1 { throw ValidationError("--user-storage-quota-mb is at least 1") }
        guard storageQuotaMb >= 0, apiRatePerUser >= 0, apiRatePerAddress >= 0 else { throw ValidationError("quotas and rates cannot be negative") }
        guard Durability(rawValue: durability) != nil else { throw ValidationError("--durability is full or relaxed") }
        guard databasePoolSize >= 2, databasePoolSize <= 1000 else { throw ValidationError("--database-pool-size is between 2 and 1000") }
        if let cacheMb, cacheMb < 4 || cacheMb > 1_048_576 { throw ValidationError("--cache-mb is between 4 and 1048576") }
        if let publicURL, ServerConfig.publicOrigin(publicURL) == nil {
            throw ValidationError("--public-url must look like https://ck.example.com (a scheme, a host and an optional port, no path)")
        }
        for p in trustProxy where CIDR(p) == nil { throw ValidationError("--trust-proxy '\(p)' is not an address or CIDR range") }
        guard ForwardedHeader(rawValue: proxyAddressHeader.lowercased()) != nil else {
            throw ValidationError("--proxy-address-header is x-forwarded-for, x-real-ip or forwarded")
        }
        guard (1...1_000_000).contains(maxConnections), (1...1_000_000).contains(maxConnectionsPerAddress) else {
            throw ValidationError("--max-connections and --max-connections-per-address are between 1 and 1000000")
        }
        guard (16...1 << 20).contains(maxAnswerMemoryMb), (0...1 << 30).contains(maxSpooledAnswersMb) else {
            throw ValidationError("--max-answer-memory-mb is between 16 and 1048576, --max-spooled-answers-mb between 0 and 1073741824")
        }
    }
    @Option(help: "The URL the world reaches this server at, e.g. https://ck.example.com behind a TLS proxy: every absolute URL the server builds uses it, and the console cookie is Secure under https.")
    var publicURL: String?
    @Option(help: "A proxy (address or CIDR, repeatable) whose forwarded client address (see --proxy-address-header) and X-Forwarded-Proto are believed.")
    var trustProxy: [String] = []
    @Option(help: "The one header the trusted proxy puts the client's address in: x-forwarded-for (nginx's $proxy_add_x_forwarded_for, HAProxy, load balancers), x-real-ip (nginx's X-Real-IP $remote_addr) or forwarded (RFC 7239). The others are ignored: a proxy passes them on as the client sent them.")
    var proxyAddressHeader: String = ForwardedHeader.xForwardedFor.rawValue
    @Option(help: "Connections open at once in all; the server also keeps it below its descriptor limit, less a reserve for its files.")
    var maxConnections: Int = HTTPServerConfig().maxConnections
    @Option(help: "Connections open at once from one client address (a trusted proxy's count toward the total only); past it, 503.")
    var maxConnectionsPerAddress: Int = HTTPServerConfig().maxConnectionsPerAddress
    @Option(help: "What answers waiting to be sent may hold in memory, all together, in MB; past it they wait in spool files.")
    var maxAnswerMemoryMb: Int = HTTPServerConfig().maxAnswerMemoryBytes >> 20
    @Option(help: "What answers waiting to be sent may hold in spool files, all together, in MB (a quarter for one user or token); past it, 503 and Retry-After.")
    var maxSpooledAnswersMb: Int = HTTPServerConfig().maxSpooledAnswerBytes >> 20

    @Option(help: "Each container environment's storage quota in MB (records and assets); writes past it get QUOTA_EXCEEDED. 0: none.")
    var storageQuotaMb: Int = 0
    @Flag(help: "Allow faults, snapshots and restores of Production (admin endpoints and the console): they reach real users' data.")
    var allowProductionAdmin = false
    @Option(help: "What one user's data (their private databases, the public records they created, their subscriptions) may take of each environment, in MB; past it that user alone gets QUOTA_EXCEEDED. Default: a tenth of --storage-quota-mb.")
    var userStorageQuotaMb: Int?
    @Option(help: "How many days each user's notifications are kept; a client asking for older ones is told to start afresh (CHANGE_TOKEN_EXPIRED).")
    var notificationRetentionDays: Double = 7
    @Option(help: "Days a sync token stays good after it was handed out; an older one is CHANGE_TOKEN_EXPIRED and the client fetches from scratch. 0: no limit.")
    var changeTokenRetentionDays: Double = 0
    @Option(help: "Subscriptions one user may hold in one container environment; past it, subscriptions/modify refuses (LIMIT_EXCEEDED).")
    var maxSubscriptionsPerUser: Int = NotificationPolicy().subscriptionsPerUser
    @Option(help: "Subscriptions of all users together in one container environment.")
    var maxSubscriptions: Int = NotificationPolicy().subscriptionsPerEnvironment
    @Option(help: "Notification listeners (SSE streams and web courier polls) one user may have open at once; past it, THROTTLED.")
    var maxListenersPerUser: Int = NotificationListeners.Limits().perUser
    @Option(help: "Notification listeners of all users together.")
    var maxListeners: Int = NotificationListeners.Limits().total
    @Option(help: "The notification log's budget per container environment in MB (charged to no storage quota); past it the oldest notifications go first.")
    var notificationLogMb: Int = Int(NotificationPolicy().logBudgetBytes >> 20)
    @Option(help: "Memory for SQLite's page caches in MB, shared by every database connection of the server (default: 1/128 of the machine's memory, 32 to 128 MB).")
    var cacheMb: Int?
    @Flag(help: "Never build composite indexes for frequent expensive query shapes (they are still counted on the Query shapes page).")
    var noAutoIndexes = false
    @Option(help: "CloudKit API requests per second per signed-in user (bursts of twice that) before 503 THROTTLED; 0: no limit.")
    var apiRatePerUser: Double = 3_000
    @Option(help: "CloudKit API requests per second per client address (bursts of twice that) before 503 THROTTLED; 0: no limit.")
    var apiRatePerAddress: Double = 10_000

    @Option(help: "Accounts one client address may create per hour on the sign-up page.")
    var signUpsPerAddressPerHour: Double = SignInThrottle.Policy().signUpsPerAddressPerHour
    @Option(help: "Accounts the whole server may create per second (bursts of four times that).")
    var signUpsPerSecond: Double = SignInThrottle.Policy().signUpsPerSecond

    @Option(help: "A file holding the token GET /-/metrics requires (Authorization: Bearer TOKEN); without it, metrics are answered on loopback only.")
    var metricsTokenFile: String?

    @Option(help: "A file holding the token the admin endpoints (/-/admin/faults) require; without it they are off.")
    var adminTokenFile: String?

    @Option(help: ArgumentHelp("Send APNs pushes here instead of Apple's hosts (https://HOST:PORT): a local stand-in for APNs, for testing.", valueName: "url"))
    var apnsEndpoint: String?

    @Option(help: ArgumentHelp("Trust this certificate authority (PEM) for APNs instead of the system's: the stand-in's.", valueName: "file"))
    var apnsCaFile: String?

    @Flag(help: "Let console admins browse users' private and shared data in Production (each view is audited).")
    var allowProductionUserData = false

    @Flag(help: "Make every console administrator enrol a second factor (TOTP) before reaching any page.")
    var requireTwoFactor = false

    @Flag(help: "Keep everything in a temporary directory removed at exit (for CI): a fresh server each run, relaxed durability.")
    var ephemeral = false

    func run() async throws {
        LoggingSystem.bootstrap(LineLogHandler.init)
        if ephemeral && (databaseURL != nil || data != "./data") {
            FileHandle.standardError.write(Data("error: --ephemeral keeps its data in a temporary directory: leave out --data and --database-url\n".utf8))
            throw ExitCode(1)
        }
        let scratch = ephemeral ? FileManager.default.temporaryDirectory.appendingPathComponent("stratus-ephemeral-\(UUID().uuidString)") : nil
        defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
        let config = try configuration(dataDirectory: scratch ?? URL(fileURLWithPath: data))
        let app: StratusApplication
        do { app = try await StratusApplication.open(config: config) } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
        try await app.start()
        // Unbuffered, so whoever started us (a script, a test) sees the URL at once.
        FileHandle.standardOutput.write(Data("Stratus is serving \(app.url)\n".utf8))
        if let setup = app.console.setupPath {
            FileHandle.standardOutput.write(Data("No administrator yet: create the first one at \(app.url.dropLast())\(setup)\n".utf8))
        }
        if let demo = app.demoInstall {
            // Shown once, as the setup link is: only their hashes are kept.
            let lines = demo.users.map { "  \($0.name) <\($0.email)>  password: \($0.password)" }
            FileHandle.standardOutput.write(Data("""
                Demo container \(DemoData.container), shown only now:
                \(lines.joined(separator: "\n"))
                  API token (Development, for a web app at \(demo.apiTokenOrigin)): \(demo.apiToken)

                """.utf8))
        }
        await Signals.waitForTermination()
        FileHandle.standardOutput.write(Data("stopping: letting requests in flight finish\n".utf8))
        await app.stop()
    }

    /// The server's configuration from the command line.
    private func configuration(dataDirectory: URL) throws -> ServerConfig {
        var config = ServerConfig(host: host, port: port, dataDirectory: dataDirectory,
                                  templatesDirectory: templates.map { URL(fileURLWithPath: $0) } ?? ResourceLocator.templates,
                                  publicDirectory: `public`.map { URL(fileURLWithPath: $0) } ?? ResourceLocator.publicFiles, demo: demo,
                                  allowProductionUserData: allowProductionUserData, apiBodyLimit: apiBodyLimit)
        config.durability = ephemeral ? .relaxed : Durability(rawValue: durability) ?? .full
        config.databaseURL = ephemeral ? nil : databaseURL ?? ProcessInfo.processInfo.environment["STRATUS_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        config.databasePoolSize = databasePoolSize
        config.requireTwoFactor = requireTwoFactor
        config.http.publicURL = publicURL.flatMap(ServerConfig.publicOrigin)
        config.http.trustedProxies = trustProxy.compactMap(CIDR.init)
        config.http.maxBufferedBodyBytes = maxBufferedBodyMb << 20
        config.http.proxyAddressHeader = ForwardedHeader(rawValue: proxyAddressHeader.lowercased()) ?? .xForwardedFor
        config.http.maxConnections = maxConnections
        config.http.maxConnectionsPerAddress = maxConnectionsPerAddress
        config.http.maxAnswerMemoryBytes = maxAnswerMemoryMb << 20
        config.http.maxSpooledAnswerBytes = maxSpooledAnswersMb << 20
        config.storageQuotaBytes = storageQuotaMb > 0 ? Int64(storageQuotaMb) * 1_048_576 : nil
        config.userStorageQuotaBytes = userStorageQuotaMb.map { Int64($0) * 1_048_576 }
        config.allowProductionAdmin = allowProductionAdmin
        config.notifications = NotificationPolicy(retention: Int64(notificationRetentionDays * 86_400_000), subscriptionsPerUser: maxSubscriptionsPerUser,
                                                  subscriptionsPerEnvironment: maxSubscriptions, logBudgetBytes: Int64(notificationLogMb) << 20)
        config.notifications.changeTokenRetention = Int64(changeTokenRetentionDays * 86_400_000)
        config.listeners = NotificationListeners.Limits(perUser: maxListenersPerUser, total: maxListeners)
        config.signInThrottle.signUpsPerAddressPerHour = signUpsPerAddressPerHour
        config.signInThrottle.signUpsPerSecond = signUpsPerSecond
        config.cacheMegabytes = cacheMb
        try readFiles(into: &config)
        config.autoIndexes.enabled = !noAutoIndexes
        config.apiLimits = APILimits(perUserPerSecond: apiRatePerUser, perAddressPerSecond: apiRatePerAddress)
        return config
    }

    /// The settings that name files (tokens, the APNs endpoint and CA): each checked, with one line saying what is wrong.
    private func readFiles(into config: inout ServerConfig) throws {
        if let metricsTokenFile {
            guard let token = try? String(contentsOfFile: metricsTokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), token.count >= 16 else {
                FileHandle.standardError.write(Data("error: --metrics-token-file must name a readable file holding a token of at least 16 characters\n".utf8))
                throw ExitCode(1)
            }
            config.metricsToken = token
        }
        if let adminTokenFile {
            guard let token = try? String(contentsOfFile: adminTokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), token.count >= 16 else {
                FileHandle.standardError.write(Data("error: --admin-token-file must name a readable file holding a token of at least 16 characters\n".utf8))
                throw ExitCode(1)
            }
            config.adminToken = token
        }
        if let apnsEndpoint {
            guard let u = URL(string: apnsEndpoint), u.scheme?.lowercased() == "https", u.host != nil else {
                FileHandle.standardError.write(Data("error: --apns-endpoint must be an https URL such as https://127.0.0.1:8443\n".utf8))
                throw ExitCode(1)
            }
            config.apnsEndpoint = apnsEndpoint
        }
        if let apnsCaFile {
            guard FileManager.default.isReadableFile(atPath: apnsCaFile) else {
                FileHandle.standardError.write(Data("error: --apns-ca-file must name a readable PEM file\n".utf8))
                throw ExitCode(1)
            }
            config.apnsCAFile = apnsCaFile
        }
    }
}

/// SIGINT and SIGTERM end `serve` gracefully instead of killing it mid-request.
enum Signals {
    static func waitForTermination() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let queue = DispatchQueue(label: "stratus.signals")
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let once = OnceFlag()
            let sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
            for s in sources {
                s.setEventHandler { if once.take() { c.resume() } }
                s.resume()
            }
            SignalSources.keep(sources)
        }
    }
}

/// Signal sources must outlive the call that made them.
enum SignalSources {
    nonisolated(unsafe) static var kept: [any DispatchSourceSignal] = []
    static func keep(_ s: [any DispatchSourceSignal]) { kept = s }
}

final class OnceFlag: @unchecked Sendable {
    private var taken = false
    private let lock = NSLock()
    func take() -> Bool { lock.lock(); defer { lock.unlock() }; if taken { return false }; taken = true; return true }
}
