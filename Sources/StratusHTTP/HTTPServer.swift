import FlyingSocks
import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on FlyingSocks' non-blocking sockets: our own codec (see `HTTPConnection`), TCP_NODELAY,
/// per-connection deadlines, and a graceful stop that lets requests in flight finish.
public final class HTTPServer: Sendable {
    public let config: HTTPServerConfig
    package let router: Router
    let logger: Logger

    private struct State {
        var listener: Socket?
        var port: UInt16 = 0
        var draining = false
        var task: Task<Void, Never>?
        /// Enforces every connection's deadline (see `ConnectionBudget.sweep`).
        var sweeper: Task<Void, Never>?
        var warnedAboutProxy = false
        /// Where this server's connections run, from `start()` to `stop()` (see `ConnectionWorkers`).
        var threads: ConnectionWorkers?
    }
    private let state = Mutex(State())

    /// Told of every answered request (metrics, request logs).
    let observe: (@Sendable (RequestRecord) -> Void)?
    /// Request body bytes held by every connection together (`HTTPServerConfig.maxBufferedBodyBytes`).
    let budget: BodyBudget
    /// The connections open, within the total and per-address limits (see `ConnectionBudget`).
    let connections: ConnectionBudget
    /// What answers waiting to be sent hold (see `AnswerSpool`).
    public let answers: AnswerBudget

    /// Body bytes held in memory now, across connections.
    public var bufferedBodyBytes: Int { budget.inUse }

    public init(config: HTTPServerConfig, router: Router, logger: Logger = Logger(label: "stratus.http"),
                observe: (@Sendable (RequestRecord) -> Void)? = nil) {
        self.observe = observe
        self.config = config
        self.router = router
        self.logger = logger
        budget = BodyBudget(limit: config.maxBufferedBodyBytes,
                            perCredentialLimit: config.maxBufferedBodyBytesPerCredential)
        answers = AnswerBudget(memoryLimit: config.maxAnswerMemoryBytes, spoolLimit: config.maxSpooledAnswerBytes,
                               directory: config.spoolDirectory ?? NSTemporaryDirectory())
        let descriptors = DescriptorLimit.raiseToHard()
        connections = ConnectionBudget(limit: min(config.maxConnections,
                                                  descriptors - DescriptorLimit.reserve(under: descriptors)),
                                       perAddress: config.maxConnectionsPerAddress)
    }

    /// Whether `stop()` has begun: connections finish their request in flight and close.
    public var isDraining: Bool { state.withLock { $0.draining } }

    /// Connections open now.
    public var openConnections: Int { connections.count }

    /// Connections open, their limits, and those refused or closed to make room (for `/-/metrics`).
    public var connectionFigures: ConnectionFigures { connections.figures }

    /// The listening socket's descriptor number while the server listens (tests).
    var listenerDescriptor: Int32? { state.withLock { $0.listener?.file.rawValue } }

    /// The port actually bound (useful with port 0).
    public var port: UInt16 { state.withLock { $0.port } }

    /// Binds, listens and starts accepting in the background. Returns once the port is open.
    public func start() async throws {
        if config.publicURL != nil, config.trustedProxies.isEmpty {
            logger.warning("--public-url is set and no --trust-proxy: requests from this machine (127.0.0.1, ::1) are taken to come through a proxy, not from a local user. /-/metrics answers them only with --metrics-token-file, and everyone behind the proxy shares one address for throttling. Name the proxy with --trust-proxy 127.0.0.1 and have it send X-Forwarded-For (see docs/running-on-the-internet.md)")
        }
        let pool = try await SharedSocketPool.get()
        let socket = try Socket(domain: AF_INET)
        try socket.setValue(true, for: .localAddressReuse)
        try socket.bind(to: sockaddr_in.inet(ip4: config.host, port: config.port))
        try socket.listen(maxPendingConnection: 1024)
        let bound: UInt16
        if case .ip4(_, let p) = try socket.sockname() { bound = p } else { bound = config.port }
        let listener = try AsyncSocket(socket: socket, pool: pool)
        // Where this server's connections run (see `ConnectionWorkers`), ended by `stop()`. Workers of its own: one
        // server's blocked work (a write waiting for SQLite's lock, a PostgreSQL round trip) never holds up another
        // server's connections in the same process (a test run holds dozens).
        let threads = try ConnectionWorkers(count: ConnectionWorkers.standardCount(perCore: config.workersPerCore), extra: 32,
                                            name: "stratus-http")
        let task = Task { [self] in await self.acceptLoop(listener, threads) }
        let sweeper = Task { [connections] in
            while !Task.isCancelled {
                connections.sweep()
                try? await Task.sleep(for: Self.sweepInterval)
            }
        }
        state.withLock {
            $0.threads = threads
            $0.listener = socket
            $0.port = bound
            $0.task = task
            $0.sweeper = sweeper
        }
        logger.info("listening", metadata: ["host": "\(config.host)", "port": "\(bound)"])
        if config.publicURL != nil && config.trustedProxies.isEmpty {
            logger.warning("--public-url is set but no --trust-proxy: if a proxy on this machine forwards requests, name it with --trust-proxy 127.0.0.1")
        }
    }

    /// How often every connection's deadline is looked at.
    static let sweepInterval: Duration = .milliseconds(250)

    private func acceptLoop(_ listener: AsyncSocket, _ threads: ConnectionWorkers) async {
        let spare = SpareDescriptor()
        await withDiscardingTaskGroup { group in
            while !state.withLock({ $0.draining }) {
                let client: AsyncSocket
                do { client = try await listener.accept() } catch {
                    if state.withLock({ $0.draining }) { break }
                    // Out of descriptors (the reserve spent by something else): the waiting connection is taken with
                    // the spare descriptor and refused, rather than left to wake the loop again at once.
                    if spare.shed(listener: listener.socket.file.rawValue, answer: Self.overloaded) { continue }
                    try? await Task.sleep(for: .milliseconds(10))
                    continue
                }
                let fd = client.socket.file.rawValue
                let remote = (try? client.socket.remotePeer()).map(HTTPServer.describe) ?? ""
                let host = HTTPRequest.host(ofAddress: remote)
                // The first byte's deadline varies a little from connection to connection: a crowd that connected
                // at once is then not closed, and does not come back, all in the same instant.
                let watchdog = ConnectionWatchdog(fd: fd, address: host,
                                                  deadline: .now + config.firstByteTimeout * Double.random(in: 0.8...1.2))
                let exempt = config.trustedProxies.contains { $0.contains(host) }
                switch connections.admit(watchdog, exempt: exempt) {
                case .admitted: break
                case .overAddress:
                    Self.refuse(fd, Self.tooManyFromAddress)
                    continue
                case .overTotal:
                    Self.refuse(fd, Self.overloaded)
                    continue
                }
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                // Room for a whole page of records, so a response goes out in one write instead of waiting on the peer.
                var sendBuffer: Int32 = 1 << 20
                setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
                // The connection runs on one of the server's workers: a request is read, handled (its storage calls
                // made in place, see `BlockingWork.run`) and answered on the thread that woke for its bytes.
                guard let placed = try? threads.place(client) else {
                    connections.release(watchdog)
                    try? client.close()
                    continue
                }
                group.addTask(executorPreference: placed.executor) { [self] in
                    var connection = HTTPConnection(socket: placed.socket, remoteAddress: remote, config: config,
                                                    router: router,
                                                    logger: logger, budget: budget, answers: answers, watchdog: watchdog,
                                                    isDraining: { [self] in state.withLock { $0.draining } }, observe: observe,
                                                    warnUntrustedProxy: { [self] headers in warnOnce(headers) })
                    await connection.run()
                    connections.release(watchdog)
                    placed.release()
                }
            }
        }
    }

    /// What a connection over a limit is answered before it is closed: CloudKit's envelope (a Web Services client
    /// reads its code and `retryAfter`; anyone else, a readable reason).
    static let overloaded = refusal("the server has as many connections as it takes: retry shortly")
    static let tooManyFromAddress = refusal("too many connections from this address: close some, or retry shortly")

    private static func refusal(_ reason: String) -> [UInt8] {
        let body = #"{"serverErrorCode":"THROTTLED","reason":"\#(reason)","retryAfter":1}"#
        return Array(("HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\nretry-after: 1\r\n"
                      + "content-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n" + body).utf8)
    }

    /// Answers and closes a connection over a limit at once, on the accept loop: a write that fits the socket's
    /// buffer (it always does, a new socket's is empty), no task and no thread.
    static func refuse(_ fd: Int32, _ answer: [UInt8]) {
        _ = answer.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        Glibc.close(fd)
    }

    /// A proxy on this machine forwards requests and `--trust-proxy` does not name it: said once, in the log.
    private func warnOnce(_ headers: HTTPHeaders) {
        guard state.withLock({ s in defer { s.warnedAboutProxy = true }; return !s.warnedAboutProxy }) else { return }
        logger.warning("requests arrive through a proxy on this machine that is not trusted: start the server with --trust-proxy 127.0.0.1 (see docs/running-on-the-internet.md). Until then such requests count as the forwarded client's for throttling and logs and are never loopback's for /-/metrics",
                       metadata: ["x-forwarded-for": "\(headers["x-forwarded-for"] ?? "")",
                                  "forwarded": "\(headers["forwarded"] ?? "")",
                                  "x-real-ip": "\(headers["x-real-ip"] ?? "")"])
    }

    static func describe(_ a: Socket.Address) -> String {
        switch a {
        case .ip4(let h, let p): "\(h):\(p)"
        case .ip6(let h, let p): "[\(h)]:\(p)"
        case .unix(let p): p
        }
    }

    /// Stops accepting, lets requests in flight finish (up to the drain timeout), closes idle connections.
    public func stop() async {
        // The listener is taken out once: a second stop (a teardown after a test stopped the server itself) must
        // not shut down or close its descriptor number again, which by then may be another file's of the process.
        let (listener, task, threads, sweeper) = state.withLock { s -> (Socket?, Task<Void, Never>?, ConnectionWorkers?,
                Task<Void, Never>?) in
            s.draining = true
            defer { (s.listener, s.task, s.threads, s.sweeper) = (nil, nil, nil, nil) }
            return (s.listener, s.task, s.threads, s.sweeper)
        }
        guard listener != nil || task != nil else { return }
        if let listener { shutdown(listener.file.rawValue, Int32(SHUT_RDWR)) }
        let deadline = ContinuousClock.now + config.drainTimeout
        while ContinuousClock.now < deadline {
            let open = connections.open
            if open.isEmpty { break }
            // Connections waiting for a next request are woken and close; busy ones finish their response first.
            for w in open { w.fireIfIdle() }
            try? await Task.sleep(for: .milliseconds(20))
        }
        for w in connections.open { w.fire() }
        task?.cancel()
        await task?.value
        sweeper?.cancel()
        threads?.shutdown()
        try? listener?.close()
        logger.info("stopped")
    }
}
