import Foundation

/// Everything the server can be tuned by, with every default here.
public struct HTTPServerConfig: Sendable {
    public var host: String
    /// 0 picks a free port; `HTTPServer.port` tells which.
    public var port: UInt16
    /// The request line and header fields together; more is answered 431.
    public var maxHeaderBytes: Int
    /// A request's head must arrive within this long of its first byte (slow senders get 408).
    public var requestTimeout: Duration
    /// A new connection that sends no byte within this long is closed: an idle socket holds a descriptor.
    public var firstByteTimeout: Duration = .seconds(5)
    /// A body must keep arriving at this many bytes a second at least, measured over `bodyRateWindow` (a slower
    /// sender gets 408): its time is measured by progress, not as a total, so a large upload over a slow line
    /// finishes while a client trickling bytes to hold a connection does not. An answer must keep leaving at the
    /// same rate: a client that stops reading is let go, and what its answer held with it.
    public var bodyMinimumRate: Int = 8 * 1024
    public var bodyRateWindow: Duration = .seconds(10)
    /// Connections open at once in all (`serve --max-connections`); the server also keeps it below its descriptor
    /// limit, less a reserve for databases, logs and outbound work (see `DescriptorLimit`).
    public var maxConnections: Int = 16_384
    /// Connections open at once from one client address (`serve --max-connections-per-address`); a trusted proxy's
    /// count toward the total only.
    public var maxConnectionsPerAddress: Int = 1_024
    /// How long a connection may sit without sending a request (408, then closed).
    public var idleTimeout: Duration
    /// How long a stop waits for requests in flight before closing their connections.
    public var drainTimeout: Duration
    /// Bodies smaller than this are sent uncompressed.
    public var gzipMinimumBytes: Int
    /// `scheme://host[:port]` the world reaches this server at (behind TLS or a proxy): every absolute URL the
    /// server builds starts with it. Nil: built from the request's `Host` over http (or https from a trusted proxy).
    public var publicURL: String? = nil
    /// Peers whose forwarded client address and `X-Forwarded-Proto` are believed (`serve --trust-proxy`).
    public var trustedProxies: [CIDR] = []
    /// The one header those proxies put the client's address in (`serve --proxy-address-header`).
    public var proxyAddressHeader: ForwardedHeader = .xForwardedFor
    /// Request body bytes held in memory at once across all connections (`serve --max-buffered-body-mb`); a body
    /// that does not fit is answered 503 with Retry-After before it is read.
    public var maxBufferedBodyBytes: Int = 256 << 20
    /// Of those, what one credential may hold (an API token, a key, a signed-in user, an admin, or for bodies no
    /// route checked, a client address): nil is a quarter of `maxBufferedBodyBytes`.
    public var maxBufferedBodyBytesPerCredential: Int? = nil
    /// What answers waiting to be sent may hold in memory, all together (`serve --max-answer-memory-mb`), and in
    /// spool files past that (`serve --max-spooled-answers-mb`; a quarter for one credential): see `AnswerBudget`.
    public var maxAnswerMemoryBytes: Int = 256 << 20
    public var maxSpooledAnswerBytes: Int = 4 << 30
    /// Where spool files are made (unlinked at once); nil: the system's temporary directory.
    public var spoolDirectory: String? = nil
    /// Bodies larger than this are read only once their route admits the request (`Route.admit`).
    public var admissionThreshold: Int = 64 * 1024
    /// How many threads wait for connections' requests and run them (`ConnectionWorkers`): one per core where a
    /// request's storage calls seldom wait (SQLite), two where each waits for a round trip (PostgreSQL), so that
    /// a core has another request to run meanwhile.
    public var workersPerCore: Int = 1

    public init(host: String = "127.0.0.1", port: UInt16 = 8080, maxHeaderBytes: Int = 16 * 1024,
                requestTimeout: Duration = .seconds(15), idleTimeout: Duration = .seconds(30),
                drainTimeout: Duration = .seconds(10), gzipMinimumBytes: Int = 1024) {
        self.host = host
        self.port = port
        self.maxHeaderBytes = maxHeaderBytes
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.drainTimeout = drainTimeout
        self.gzipMinimumBytes = gzipMinimumBytes
    }
}
