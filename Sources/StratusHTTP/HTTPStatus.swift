public struct HTTPStatus: Hashable, Sendable {
    public var code: Int
    public var reason: String
    public init(_ code: Int, _ reason: String) { self.code = code; self.reason = reason }

    public static let ok = HTTPStatus(200, "OK")
    public static let created = HTTPStatus(201, "Created")
    public static let noContent = HTTPStatus(204, "No Content")
    public static let movedPermanently = HTTPStatus(301, "Moved Permanently")
    public static let found = HTTPStatus(302, "Found")
    public static let seeOther = HTTPStatus(303, "See Other")
    public static let notModified = HTTPStatus(304, "Not Modified")
    public static let badRequest = HTTPStatus(400, "Bad Request")
    public static let unauthorized = HTTPStatus(401, "Unauthorized")
    public static let forbidden = HTTPStatus(403, "Forbidden")
    public static let notFound = HTTPStatus(404, "Not Found")
    public static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    public static let requestTimeout = HTTPStatus(408, "Request Timeout")
    public static let conflict = HTTPStatus(409, "Conflict")
    public static let preconditionFailed = HTTPStatus(412, "Precondition Failed")
    public static let contentTooLarge = HTTPStatus(413, "Content Too Large")
    public static let misdirected = HTTPStatus(421, "Misdirected Request")
    public static let tooManyRequests = HTTPStatus(429, "Too Many Requests")
    public static let headersTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
    public static let internalServerError = HTTPStatus(500, "Internal Server Error")
    public static let notImplemented = HTTPStatus(501, "Not Implemented")
    public static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
    public static let httpVersionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")

    /// A status by code, with the standard reason phrase where known.
    public static func code(_ c: Int) -> HTTPStatus {
        let known: [HTTPStatus] = [.ok, .created, .noContent, .movedPermanently, .found, .seeOther, .notModified,
                                   .badRequest,
                                   .unauthorized, .forbidden, .notFound, .methodNotAllowed, .requestTimeout, .conflict,
                                   .preconditionFailed, .contentTooLarge, .misdirected, .tooManyRequests, .headersTooLarge,
                                   .internalServerError, .notImplemented, .serviceUnavailable]
        return known.first { $0.code == c } ?? HTTPStatus(c, "Status \(c)")
    }
}
