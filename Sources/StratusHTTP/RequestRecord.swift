/// One answered request, as the server's observer (metrics, request logs) sees it once the response is sent.
public struct RequestRecord: Sendable {
    public var method: HTTPMethod
    /// The matched route's pattern (`/database/1/{container}/{environment}/{database}/records/query`), or
    /// `unmatched`: a bounded set of values, fit for a metric label.
    public var route: String
    /// The route's parameters (`container`, `environment`, …); empty when unmatched.
    public var parameters: [String: String]
    public var status: Int
    public var seconds: Double
    /// The request's own headers and the response's, for observers that need more (a CloudKit error code, a uuid).
    public var request: HTTPRequest
    public var response: HTTPResponse
}
