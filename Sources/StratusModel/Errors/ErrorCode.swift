/// CloudKit Web Services server error codes, spelled exactly as they travel on the wire.
public enum ErrorCode: String, Sendable, Codable, CaseIterable {
    case accessDenied = "ACCESS_DENIED"
    case atomicError = "ATOMIC_ERROR"
    case authenticationFailed = "AUTHENTICATION_FAILED"
    case authenticationRequired = "AUTHENTICATION_REQUIRED"
    case badRequest = "BAD_REQUEST"
    case conflict = "CONFLICT"
    case exists = "EXISTS"
    case internalError = "INTERNAL_ERROR"
    case notFound = "NOT_FOUND"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case throttled = "THROTTLED"
    case tryAgainLater = "TRY_AGAIN_LATER"
    case validatingReferenceError = "VALIDATING_REFERENCE_ERROR"
    case zoneNotFound = "ZONE_NOT_FOUND"
    case uniqueFieldError = "UNIQUE_FIELD_ERROR"
    case zoneBusy = "ZONE_BUSY"
    /// The service cannot answer now (a fault injected for client tests; a backend that is down).
    case serviceUnavailable = "SERVICE_UNAVAILABLE"
    /// A position in a change or notification log older than what the server still keeps: start again.
    case changeTokenExpired = "CHANGE_TOKEN_EXPIRED"
    /// A request past one of the server's limits on size or count (CloudKit's `CKError.limitExceeded`): not the
    /// user's storage, which is QUOTA_EXCEEDED.
    case limitExceeded = "LIMIT_EXCEEDED"
    /// A request into a zone its owner purged (CloudKit's "delete this app's data" in Settings; here the console's
    /// "Delete this user's data" or `stratus users purge`): the app must not write its cache back, only recreate
    /// the zone if it wants it again (`CKError.userDeletedZone`).
    case userDeletedZone = "USER_DELETED_ZONE"
}

extension ErrorCode {
    /// The HTTP status CloudKit answers with: the one table every face of Stratus uses.
    public var httpStatus: Int {
        switch self {
        case .accessDenied: 403
        case .atomicError, .badRequest, .changeTokenExpired: 400
        case .authenticationFailed: 401
        case .authenticationRequired: 421
        case .conflict, .exists, .uniqueFieldError: 409
        case .internalError: 500
        case .notFound, .zoneNotFound, .userDeletedZone: 404
        case .quotaExceeded, .limitExceeded: 413
        // The live service answers rate limits with 503 and Retry-After (the archived table says 429).
        case .throttled: 503
        case .tryAgainLater, .zoneBusy, .serviceUnavailable: 503
        case .validatingReferenceError: 412
        }
    }
}
