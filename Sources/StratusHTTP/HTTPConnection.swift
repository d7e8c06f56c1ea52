import FlyingSocks
import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One client connection: reads requests (keep-alive, pipelining), frames bodies with limits, runs the
/// route's handler and writes the response. Every way a client can misbehave ends in a status, not a crash.
struct HTTPConnection {
    let socket: AsyncSocket
    let remoteAddress: String
    let config: HTTPServerConfig
    let router: Router
    let logger: Logger
    let watchdog: ConnectionWatchdog
    let isDraining: @Sendable () -> Bool
    let observe: (@Sendable (RequestRecord) -> Void)?
    /// Called for requests forwarded by an untrusted proxy on this machine (the server warns once).
    let warnUntrustedProxy: @Sendable (HTTPHeaders) -> Void
    /// Body bytes every connection together may hold.
    let budget: BodyBudget
    /// What answers waiting to be sent may hold (see `AnswerSpool`).
    let answers: AnswerBudget

    private var buffer: [UInt8] = []
    /// While a body is read: how much of the current window's bytes have come (see `HTTPServerConfig.bodyMinimumRate`).
    private var pace: Int?

    init(socket: AsyncSocket, remoteAddress: String, config: HTTPServerConfig, router: Router,
         logger: Logger, budget: BodyBudget, answers: AnswerBudget = .standalone,
         watchdog: ConnectionWatchdog, isDraining: @escaping @Sendable () -> Bool, observe: (@Sendable (RequestRecord) -> Void)? = nil,
         warnUntrustedProxy: @escaping @Sendable (HTTPHeaders) -> Void = { _ in }) {
        self.observe = observe
        self.warnUntrustedProxy = warnUntrustedProxy
        self.budget = budget
        self.answers = answers
        self.socket = socket
        self.remoteAddress = remoteAddress
        self.config = config
        self.router = router
        self.logger = logger
        self.watchdog = watchdog
        self.isDraining = isDraining
    }

    private enum Stop: Error { case closed, timedOut }

    /// Reads more bytes into the buffer; a timeout or a closed peer ends the connection.
    private mutating func fill() async throws {
        let chunk: [UInt8]
        do { chunk = try await socket.read(atMost: 65536) } catch {
            throw watchdog.fired ? Stop.timedOut : Stop.closed
        }
        if chunk.isEmpty { throw watchdog.fired ? Stop.timedOut : Stop.closed }
        if buffer.capacity == 0 { buffer.reserveCapacity(8192) }
        buffer.append(contentsOf: chunk)
        // A body is timed by its progress: each window's worth of bytes at the minimum rate buys another window.
        if let got = pace {
            if got + chunk.count >= windowBytes {
                watchdog.setDeadline(.now + config.bodyRateWindow)
                pace = 0
            } else {
                pace = got + chunk.count
            }
        }
    }

    /// The bytes a body or an answer must move per `bodyRateWindow` (at least 16 KB).
    private var windowBytes: Int {
        let c = config.bodyRateWindow.components
        return max(16 * 1024, Int(Double(config.bodyMinimumRate) * (Double(c.seconds) + Double(c.attoseconds) / 1e18)))
    }

    /// Starts timing a body by its progress (the head's deadline no longer applies to it).
    private mutating func startBody() {
        pace = 0
        watchdog.setDeadline(.now + config.bodyRateWindow)
    }

    mutating func run() async {
        defer { watchdog.close { try? socket.close() } }
        var served = 0
        while true {
            // A connection that has sent nothing yet is given a few seconds, not the keep-alive's idle time.
            if served > 0 { watchdog.setDeadline(.now + config.idleTimeout) }
            do {
                guard try await serveOne() else { return }
                served += 1
            } catch Stop.timedOut {
                // A kept-alive connection idle between requests closes without an answer, as nginx's keepalive
                // timeout does: a client may be writing its next request on it at this moment, and it would take a
                // 408 for that request's answer (libcurl does) instead of retrying on a fresh connection.
                if served > 0 && buffer.isEmpty { return }
                await send(router.respond(to: HTTPError(.requestTimeout, "request timed out"), path: RequestHeadParser.target(in: buffer) ?? ""), head: false, keepAlive: false)
                return
            } catch {
                return
            }
            if isDraining() { return }
        }
    }

    /// Serves one request; returns whether the connection stays open.
    private mutating func serveOne() async throws -> Bool {
        guard var request = try await readHead() else { return false }
        let startTime = ContinuousClock.now
        let match = router.match(request.method, request.pathSegments)
        // Bytes held until this request is handled; none past the server's budget for all connections together,
        // nor past one credential's share of it.
        var held = 0
        var credential = "address " + request.clientAddress
        defer { budget.release(held, for: credential) }
        guard try await readBody(&request, match, held: &held, credential: &credential) else { return false }

        // A slow handler is the server's business, not a slow client: keep the watchdog out of it.
        watchdog.setDeadline(.now + Self.handlerTime)
        request.answers = answers
        var (response, routePattern) = await handle(&request, match)
        defer { response.spool?.close() }
        // An answer that stayed in memory is sent (and compressed) as any other body.
        if let spool = response.spool, !spool.spilled {
            response.body = Data(spool.memoryBytes)
            spool.close()
            response.spool = nil
        }
        // What the access log shows of the path: a capability in it (a courier token, a share's GUID, an upload
        // ticket) is a credential, and a log is no place for credentials.
        var loggedPath = request.rawPath
        if case .found(let route, let params) = match, route.capturesCapability { loggedPath = route.loggedPath(params) }
        // Handled: the body goes back to the budget before the answer is sent, so a client that has its answer finds
        // its bytes given back (a slow reader of a large answer no longer holds them either).
        request.body = Data()
        budget.release(held, for: credential)
        held = 0
        if response.dropsConnection {
            logger.info("request", metadata: ["method": "\(request.method.rawValue)", "path": "\(loggedPath)", "status": "dropped", "remote": "\(request.clientAddress)"])
            observe?(RequestRecord(method: request.method, route: routePattern, parameters: request.parameters, status: response.status.code,
                                   seconds: 0, request: request, response: response))
            return false
        }
        Self.compress(&response, for: request, minimumBytes: config.gzipMinimumBytes)
        if let stream = response.stream, request.method != .head {
            guard await send(response, head: false, keepAlive: false) else { return false }
            watchdog.setDeadline(.now + Self.handlerTime)
            await run(stream)
            logger.info("request", metadata: ["method": "\(request.method.rawValue)", "path": "\(loggedPath)", "status": "\(response.status.code)",
                                              "remote": "\(request.clientAddress)", "stream": "ended"])
            observe?(RequestRecord(method: request.method, route: routePattern, parameters: request.parameters, status: response.status.code,
                                   seconds: { let c = (ContinuousClock.now - startTime).components; return Double(c.seconds) + Double(c.attoseconds) / 1e18 }(), request: request, response: response))
            return false
        }
        let keepAlive = request.keepAlive && !isDraining()
        let wrote = await send(response, head: request.method == .head, keepAlive: keepAlive)
        let elapsed = (ContinuousClock.now - startTime).components
        let hundredths = elapsed.seconds * 100_000 + elapsed.attoseconds / 10_000_000_000_000
        logger.info("request", metadata: [
            "method": "\(request.method.rawValue)", "path": "\(loggedPath)", "status": "\(response.status.code)",
            "duration_ms": "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)", "remote": "\(request.clientAddress == HTTPRequest.host(ofAddress: remoteAddress) ? remoteAddress : request.clientAddress)",
        ])
        observe?(RequestRecord(method: request.method, route: routePattern, parameters: request.parameters, status: response.status.code,
                               seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, request: request, response: response))
        return wrote && keepAlive
    }

    /// Reads and parses the next request's head (the watchdog's request timeout runs from its first byte); nil when
    /// it was refused, answered and the connection is to close.
    private mutating func readHead() async throws -> HTTPRequest? {
        var scanned = 0
        var headEnd: Int?
        do { headEnd = try RequestHeadParser.headEnd(in: buffer, from: 0) } catch {
            await fail(error)
            return nil
        }
        var started = !buffer.isEmpty
        watchdog.setIdle(!started)
        if started { watchdog.setDeadline(.now + config.requestTimeout) }
        while headEnd == nil {
            if buffer.count > config.maxHeaderBytes {
                await fail(HTTPError(.headersTooLarge, "request header fields too large"))
                return nil
            }
            scanned = buffer.count
            try await fill()
            if !started { started = true; watchdog.setIdle(false); watchdog.setDeadline(.now + config.requestTimeout) }
            do { headEnd = try RequestHeadParser.headEnd(in: buffer, from: scanned) } catch {
                await fail(error)
                return nil
            }
            if headEnd == nil, let error = RequestHeadParser.requestLineError(in: buffer) {
                await fail(error)
                return nil
            }
        }
        let end = headEnd!
        if end > config.maxHeaderBytes {
            await fail(HTTPError(.headersTooLarge, "request header fields too large"))
            return nil
        }
        var request: HTTPRequest
        do { request = try RequestHeadParser.parse(buffer[0..<end], remoteAddress: remoteAddress) } catch {
            await fail(error)
            return nil
        }
        buffer.removeSubrange(0..<end)
        request.resolveClient(publicURL: config.publicURL, trustedProxies: config.trustedProxies, addressHeader: config.proxyAddressHeader)
        if request.viaUntrustedProxy { warnUntrustedProxy(request.headers) }
        return request
    }

    /// Reads the request's body into it, refused by its declared size before a byte of it is read; returns false
    /// when it was refused (answered; the connection closes). Who sends a large body is checked before a byte of it
    /// is read: a refusal closes the connection, body unread. Small ones are read first (they cost little, and the
    /// budget bounds them all): most requests, which then pay for no check of their own, and are charged to the
    /// client's address (`credential`). `held` is what the body holds of the budget.
    private mutating func readBody(_ request: inout HTTPRequest, _ match: Router.Match, held: inout Int, credential: inout String) async throws -> Bool {
        var limit = 64 * 1024
        if case .found(let route, _) = match { limit = route.bodyLimit }
        let framing: RequestHeadParser.Framing
        do { framing = try RequestHeadParser.framing(request.headers) } catch {
            await refuse(router.respond(to: error, path: request.rawPath))
            return false
        }
        if case .length(let n) = framing, n > limit {
            await refuse(router.respond(to: HTTPError(.contentTooLarge, "request body of \(n) bytes is over this endpoint's limit of \(limit)"), path: request.rawPath))
            return false
        }
        let large: Bool = switch framing {
        case .none: false
        case .length(let n): n > config.admissionThreshold
        case .chunked: true
        }
        if large, case .found(let route, let params) = match, let admit = route.admit {
            request.parameters = params
            // A route outside any group has no owner to answer what its admission throws: the router's fallback does.
            let admission: BodyAdmission
            do { admission = try await admit(request) } catch { admission = .refused(router.respond(to: error, path: request.rawPath)) }
            switch admission {
            case .refused(let refusal):
                await refuse(refusal)
                return false
            case .admitted(let who): credential = who
            }
        }
        let expectsContinue = request.headers["expect"]?.lowercased() == "100-continue" && buffer.isEmpty
        if case .none = framing {} else { startBody() }
        defer { pace = nil }
        switch framing {
        case .none: break
        case .length(let n):
            guard budget.reserve(n, for: credential) else {
                await refuse(router.respond(to: Self.busy, path: request.rawPath))
                return false
            }
            held = n
            if expectsContinue { try? await socket.write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
            while buffer.count < n { try await fill() }
            request.body = Data(buffer[0..<n])
            buffer.removeSubrange(0..<n)
        case .chunked:
            if expectsContinue { try? await socket.write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
            do { request.body = try await readChunked(limit: limit, credential: credential, held: &held) } catch let e as HTTPError {
                await refuse(router.respond(to: e, path: request.rawPath))
                return false
            }
        }
        return true
    }

    /// The route's answer (or the router's refusal), and the route's pattern for the log and metrics.
    private func handle(_ request: inout HTTPRequest, _ match: Router.Match) async -> (HTTPResponse, String) {
        switch match {
        case .found(let route, let params):
            request.parameters = params
            do { return (try await route.handler(request), route.path) } catch { return (router.respond(to: error, path: request.rawPath), route.path) }
        case .methodNotAllowed(let allowed):
            var response = router.respond(to: HTTPError(.methodNotAllowed, "\(request.method) is not allowed here"), path: request.rawPath)
            response.headers["allow"] = Set(allowed.map(\.rawValue)).sorted().joined(separator: ", ")
            return (response, "unmatched")
        case .notFound:
            return (router.respond(to: HTTPError(.notFound, "nothing at \(request.rawPath.prefix(200))"), path: request.rawPath), "unmatched")
        }
    }

    /// Gzips a compressible answer for a client that takes it. Whether the client takes gzip is asked first: most
    /// API clients do not say, and then nothing else is looked at.
    private static func compress(_ response: inout HTTPResponse, for request: HTTPRequest, minimumBytes: Int) {
        guard response.body.count >= minimumBytes, request.acceptsGzip(), response.headers["content-encoding"] == nil,
              Gzip.isCompressible(response.headers["content-type"]), let gz = Gzip.compress(response.body) else { return }
        response.body = gz
        response.headers["content-encoding"] = "gzip"
        response.headers["vary"] = "Accept-Encoding"
    }

    /// Runs a streamed answer (SSE) until it ends or the client leaves; the client's leaving is noticed at once
    /// (see `DisconnectMonitor`), not at the stream's next write.
    private func run(_ stream: @Sendable (ResponseStream) async -> Void) async {
        let socket = self.socket
        let open = OpenFlag()
        let fd = socket.socket.file.rawValue
        DisconnectMonitor.shared.watch(fd) { open.close() }
        let (watchdog, window) = (self.watchdog, config.bodyRateWindow)
        let write: @Sendable (Data) async -> Bool = { data in
            // A stream's client that stops reading is let go as an answer's is; between writes the stream has time.
            watchdog.setSending(true)
            watchdog.setDeadline(.now + window)
            defer {
                watchdog.setSending(false)
                watchdog.setDeadline(.now + Self.handlerTime)
            }
            return (try? await socket.write(data)) != nil
        }
        await stream(ResponseStream(write: write, isDraining: isDraining, isOpen: { open.isOpen },
                                    onClose: { open.onClose($0) }))
        // Before the socket closes: its number goes to the next connection.
        DisconnectMonitor.shared.unwatch(fd)
    }

    /// The answer when the bodies every connection holds would pass the server's budget.
    static let busy = HTTPError(.serviceUnavailable, "the server is receiving too many request bodies at once: retry shortly", retryAfter: 2)

    /// Decodes a chunked body, refusing it as soon as it passes `limit` or the server's body budget (each chunk is
    /// reserved before it is read; `held` is what this body holds).
    private mutating func readChunked(limit: Int, credential: String, held: inout Int) async throws -> Data {
        var decoder = ChunkedDecoder(limit: limit, maxTrailerBytes: config.maxHeaderBytes)
        while true {
            switch try decoder.step(&buffer) {
            case .needMore: try await fill()
            case .announced(let size):
                guard budget.reserve(size, for: credential) else { throw Self.busy }
                held += size
            case .finished: return decoder.body
            }
        }
    }

    /// Answers a request that could not be read, in the shape of the URL space its first line names.
    private mutating func fail(_ e: HTTPError) async {
        await refuse(router.respond(to: e, path: RequestHeadParser.target(in: buffer) ?? ""))
    }

    /// How long a refused request's unread bytes are read and thrown away after the answer (nginx's lingering close),
    /// and how many at most.
    static let lingerTime: Duration = .seconds(5)
    static let lingerQuiet: Duration = .seconds(1)
    static let lingerBytes = 64 << 20

    /// Sends an answer that ends the connection before the request's body was read, then reads and drops what the
    /// client still sends for a bounded time before closing. A client that writes its whole body before reading
    /// (Python's http.client, URLSession) would otherwise meet a reset, which can destroy the answer in its receive
    /// buffer, instead of the 413 or 401 it was sent.
    private mutating func refuse(_ response: HTTPResponse) async {
        guard await send(response, head: false, keepAlive: false) else { return }
        let fd = socket.socket.file.rawValue
        // The answer is whole: the client's read sees its end while its write still goes somewhere.
        shutdown(fd, Int32(SHUT_WR))
        buffer.removeAll()
        let end = ContinuousClock.now + Self.lingerTime
        var discarded = 0
        while discarded < Self.lingerBytes, ContinuousClock.now < end {
            watchdog.setDeadline(min(end, .now + Self.lingerQuiet))
            guard let chunk = try? await socket.read(atMost: 65536), !chunk.isEmpty else { return }
            discarded += chunk.count
        }
    }

    /// How long a handler, or a stream between its writes, may take: the server's business, not the client's.
    static let handlerTime: Duration = .seconds(3600)

    /// Writes an answer (its head, body or spool) at the client's pace: each window's worth of bytes must leave
    /// within a window, or the client, which stopped reading, is let go (see `HTTPServerConfig.bodyMinimumRate`).
    @discardableResult
    private func send(_ response: HTTPResponse, head: Bool, keepAlive: Bool) async -> Bool {
        watchdog.setSending(true)
        defer { watchdog.setSending(false) }
        do {
            let (bytes, body) = response.serialized(includeBody: !head, keepAlive: keepAlive)
            try await paced(bytes)
            if let body { try await paced(body) }
            if !head, let spool = response.spool {
                var offset = 0
                while true {
                    let chunk = spool.read(at: offset, count: max(windowBytes, 64 * 1024))
                    if chunk.isEmpty { break }
                    try await paced(Data(chunk))
                    offset += chunk.count
                }
            }
            return true
        } catch { return false }
    }

    private func paced(_ data: Data) async throws {
        var start = data.startIndex
        let step = windowBytes
        while start < data.endIndex {
            let end = min(data.endIndex, start + step)
            watchdog.setDeadline(.now + config.bodyRateWindow)
            try await socket.write(start == data.startIndex && end == data.endIndex ? data : data.subdata(in: start..<end))
            start = end
        }
    }
}

/// Whether a streaming client still holds its end of the connection, and who to tell when it lets go.
private final class OpenFlag: Sendable {
    private let state = Mutex<(open: Bool, actions: [@Sendable () -> Void])>((true, []))
    var isOpen: Bool { state.withLock { $0.open } }

    func close() {
        let actions = state.withLock { s -> [@Sendable () -> Void] in
            s.open = false
            defer { s.actions.removeAll() }
            return s.actions
        }
        for a in actions { a() }
    }

    func onClose(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.open { s.actions.append(action) }
            return !s.open
        }
        if now { action() }
    }
}
