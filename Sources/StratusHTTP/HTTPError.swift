/// A protocol-level failure with the status it answers (400, 413, 431, …), raised before a handler runs.
public struct HTTPError: Error, Sendable, Equatable {
    public var status: HTTPStatus
    public var message: String
    public init(_ status: HTTPStatus, _ message: String) { self.status = status; self.message = message }
}
