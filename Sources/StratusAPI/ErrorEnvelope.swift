import Foundation
import Logging
import StratusHTTP
import StratusModel

/// CloudKit's error envelope, `{uuid, serverErrorCode, reason, retryAfter?, redirectURL?}`, and the one rule for
/// what an error may tell a client: an internal error's text (SQLite's messages, file paths) stays in the server's
/// log under the error's `uuid`, and the client gets only that uuid to quote.
public enum ErrorEnvelope {
    static let logger = Logger(label: "stratus")

    /// The CloudKit group's error owner (see `RouteGroup`): whatever a CloudKit route throws, or the HTTP layer
    /// refuses under its paths, in CloudKit's envelope. An error that is not a `StratusError` is internal: its
    /// text is logged with the path and the client gets the uuid.
    public static let errors: RouteGroup.Errors = { error, path in
        switch error {
        case let e as HTTPError: response(e)
        case let e as StratusError: response(e, path: path)
        default: response(StratusError(.internalError, "\(error)"), path: path)
        }
    }

    /// The reason a client may read, logging the real one for internal errors.
    /// Every face (the API's envelope and per-item errors, the console's error page, the sign-in and share pages)
    /// redacts here; `path` goes into the log line.
    public static func publicReason(_ e: StratusError, uuid: String, path: String? = nil) -> String {
        guard e.code == .internalError else { return e.reason }
        var metadata: Logger.Metadata = ["uuid": "\(uuid)", "detail": "\(e.reason)"]
        if let path { metadata["path"] = "\(path)" }
        logger.error("internal error", metadata: metadata)
        return "internal error; quote \(uuid) to the server's operator"
    }

    public static func response(_ e: StratusError, status: HTTPStatus? = nil, path: String? = nil) -> HTTPResponse {
        let uuid = UUID().uuidString.lowercased()
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("uuid", uuid)
        w.field("serverErrorCode", e.code.rawValue)
        w.field("reason", publicReason(e, uuid: uuid, path: path))
        if let r = e.retryAfter { w.field("retryAfter", Int64(r)) }
        if let u = e.redirectURL { w.field("redirectURL", u) }
        if e.userDidResetEncryptedData { w.field("userDidResetEncryptedData", true) }
        w.endObject()
        var r = HTTPResponse.json(w.data, status: status ?? .code(e.code.httpStatus))
        if let after = e.retryAfter { r.headers["retry-after"] = String(after) }
        r.annotations["errorCode"] = e.code.rawValue
        r.annotations["uuid"] = uuid
        return r
    }

    /// A protocol error from the HTTP layer (400, 404, 405, 408, 413, 431, 501, 503, 505) as CloudKit's envelope,
    /// keeping
    /// its HTTP status. A body over a limit is LIMIT_EXCEEDED (QUOTA_EXCEEDED would tell the app the user's storage
    /// is full); a server too busy to take a body now is THROTTLED with its time to retry.
    public static func response(_ e: HTTPError) -> HTTPResponse {
        let code: ErrorCode = switch e.status.code {
        case 404: .notFound
        case 413: .limitExceeded
        case 429: .throttled
        case 503: .throttled
        // 501 and 505 are the client's: a coding or a protocol version this server does not take.
        case 500: .internalError
        default: .badRequest
        }
        return response(StratusError(code, e.message, retryAfter: e.retryAfter), status: e.status)
    }
}
