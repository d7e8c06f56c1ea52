/// A protocol-level failure with the status it answers (400, 413, 431, 503, …), raised before a handler runs.
public struct HTTPError: Error, Sendable, Equatable {
    public var status: HTTPStatus
    public var message: String
    /// Seconds after which the client may try again (503), sent as `Retry-After`.
    public var retryAfter: Int?
    public init(_ status: HTTPStatus, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }
}
