import Foundation

/// Everything the server can be tuned by, with every default here.
public struct HTTPServerConfig: Sendable {
    public var host: String
    /// 0 picks a free port; `HTTPServer.port` tells which.
    public var port: UInt16
    /// The request line and header fields together; more is answered 431.
    public var maxHeaderBytes: Int
    /// A request's head and body must arrive within this long of its first byte (slow senders get 408).
    public var requestTimeout: Duration
    /// How long a connection may sit without sending a request (408, then closed).
    public var idleTimeout: Duration
    /// How long a stop waits for requests in flight before closing their connections.
    public var drainTimeout: Duration
    /// Bodies smaller than this are sent uncompressed.
    public var gzipMinimumBytes: Int
    /// `scheme://host[:port]` the world reaches this server at (behind TLS or a proxy): every absolute URL the
    /// server builds starts with it. Nil: built from the request's `Host` over http (or https from a trusted proxy).
    public var publicURL: String? = nil
    /// Peers whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed (`serve --trust-proxy`).
    public var trustedProxies: [CIDR] = []
    /// Request body bytes held in memory at once across all connections (`serve --max-buffered-body-mb`); a body
    /// that does not fit is answered 503 with Retry-After before it is read.
    public var maxBufferedBodyBytes: Int = 256 << 20
    /// Of those, what one credential may hold (an API token, a key, a signed-in user, an admin, or for bodies no
    /// route checked, a client address): nil is a quarter of `maxBufferedBodyBytes`.
    public var maxBufferedBodyBytesPerCredential: Int? = nil
    /// Bodies larger than this are read only once their route admits the request (`Route.admit`).
    public var admissionThreshold: Int = 64 * 1024

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
