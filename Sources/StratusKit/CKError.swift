import Foundation
import StratusJSON

/// Mirrors `CKErrorDomain`.
public let CKErrorDomain = "CKErrorDomain"
/// Mirrors `CKErrorRetryAfterKey`: seconds to wait before retrying, as an `NSNumber`.
public let CKErrorRetryAfterKey = "CKRetryAfter"
/// Mirrors `CKPartialErrorsByItemIDKey`: per-item errors of a `.partialFailure`.
public let CKPartialErrorsByItemIDKey = "CKPartialErrors"
/// Mirrors `CKRecordChangedErrorServerRecordKey`.
public let CKRecordChangedErrorServerRecordKey = "ServerRecord"
/// Mirrors `CKRecordChangedErrorClientRecordKey`.
public let CKRecordChangedErrorClientRecordKey = "ClientRecord"
/// Mirrors `CKRecordChangedErrorAncestorRecordKey`.
public let CKRecordChangedErrorAncestorRecordKey = "AncestorRecord"
/// Mirrors `CKErrorUserDidResetEncryptedDataKey`: an `NSNumber` Boolean in a `.zoneNotFound` error's `userInfo`, true
/// when the zone was deleted because the user reset their encrypted data (re-upload what the device kept).
public let CKErrorUserDidResetEncryptedDataKey = "CKErrorUserDidResetEncryptedDataKey"
/// The server's own `serverErrorCode` behind an error, for logs and support (not in CloudKit).
public let CKErrorServerErrorCodeKey = "StratusServerErrorCode"

/// Mirrors `CKError`: CloudKit's error, with its codes and `userInfo` keys, mapped from the `serverErrorCode`s
/// Stratus answers (see `CKError.Code(serverErrorCode:)`). `catch CKError.serverRecordChanged` and
/// `catch let e as CKError where e.code == …` both work as with CloudKit.
public struct CKError: Error, CustomNSError, CustomStringConvertible, @unchecked Sendable {
    /// Mirrors `CKError.code`.
    public let code: Code
    /// Mirrors `CKError.userInfo`.
    public let userInfo: [String: Any]

    /// Mirrors `CKError(_:userInfo:)`.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    /// Mirrors `CKError.errorDomain`.
    public static var errorDomain: String { CKErrorDomain }
    /// Mirrors `CKError.errorCode`.
    public var errorCode: Int { code.rawValue }
    /// Mirrors `CKError.errorUserInfo`.
    public var errorUserInfo: [String: Any] { userInfo }
    /// Mirrors `CKError.localizedDescription`.
    public var localizedDescription: String { userInfo[NSLocalizedDescriptionKey] as? String ?? "CloudKit error \(code)" }
    /// A short form for logs.
    public var description: String { "<CKError \(code.rawValue) \(code): \"\(localizedDescription)\">" }

    /// Mirrors `CKError.retryAfterSeconds`.
    public var retryAfterSeconds: Double? { (userInfo[CKErrorRetryAfterKey] as? NSNumber)?.doubleValue ?? userInfo[CKErrorRetryAfterKey] as? Double }
    /// Mirrors `CKError.partialErrorsByItemID`: keyed by `CKRecord.ID`, `CKRecordZone.ID` or subscription ID.
    public var partialErrorsByItemID: [AnyHashable: any Error]? { userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: any Error] }
    /// Mirrors `CKError.serverRecord`: the server's copy after a `.serverRecordChanged`.
    public var serverRecord: CKRecord? { userInfo[CKRecordChangedErrorServerRecordKey] as? CKRecord }
    /// Mirrors `CKError.clientRecord`: the record that was being saved.
    public var clientRecord: CKRecord? { userInfo[CKRecordChangedErrorClientRecordKey] as? CKRecord }
    /// Mirrors `CKError.ancestorRecord`: the version the client's change was based on (its system fields and the
    /// values it had before the change, as far as the client record knows them).
    public var ancestorRecord: CKRecord? { userInfo[CKRecordChangedErrorAncestorRecordKey] as? CKRecord }

    /// Mirrors `CKError.Code`, with CloudKit's raw values.
    public enum Code: Int, Sendable, CustomStringConvertible {
        case internalError = 1, partialFailure = 2, networkUnavailable = 3, networkFailure = 4, badContainer = 5
        case serviceUnavailable = 6, requestRateLimited = 7, missingEntitlement = 8, notAuthenticated = 9
        case permissionFailure = 10, unknownItem = 11, invalidArguments = 12, resultsTruncated = 13
        case serverRecordChanged = 14, serverRejectedRequest = 15, assetFileNotFound = 16, assetFileModified = 17
        case incompatibleVersion = 18, constraintViolation = 19, operationCancelled = 20, changeTokenExpired = 21
        case batchRequestFailed = 22, zoneBusy = 23, badDatabase = 24, quotaExceeded = 25, zoneNotFound = 26
        case limitExceeded = 27, userDeletedZone = 28, tooManyParticipants = 29, alreadyShared = 30
        case referenceViolation = 31, managedAccountRestricted = 32, participantMayNeedVerification = 33
        case serverResponseLost = 34, assetNotAvailable = 35, accountTemporarilyUnavailable = 36
        /// Apple's (26.0 and later): the user is already invited to the share. No Web Services error code maps to it,
        /// and Stratus answers inviting an invited participant again by keeping the invitation, so it never comes.
        case participantAlreadyInvited = 37

        /// A short form for logs.
        public var description: String { String(describing: Self.names[self] ?? "code\(rawValue)") }

        private static let names: [Code: String] = [
            .internalError: "internalError", .partialFailure: "partialFailure", .networkUnavailable: "networkUnavailable",
            .networkFailure: "networkFailure", .badContainer: "badContainer", .serviceUnavailable: "serviceUnavailable",
            .requestRateLimited: "requestRateLimited", .missingEntitlement: "missingEntitlement",
            .notAuthenticated: "notAuthenticated", .permissionFailure: "permissionFailure", .unknownItem: "unknownItem",
            .invalidArguments: "invalidArguments", .resultsTruncated: "resultsTruncated",
            .serverRecordChanged: "serverRecordChanged", .serverRejectedRequest: "serverRejectedRequest",
            .assetFileNotFound: "assetFileNotFound", .assetFileModified: "assetFileModified",
            .incompatibleVersion: "incompatibleVersion", .constraintViolation: "constraintViolation",
            .operationCancelled: "operationCancelled", .changeTokenExpired: "changeTokenExpired",
            .batchRequestFailed: "batchRequestFailed", .zoneBusy: "zoneBusy", .badDatabase: "badDatabase",
            .quotaExceeded: "quotaExceeded", .zoneNotFound: "zoneNotFound", .limitExceeded: "limitExceeded",
            .userDeletedZone: "userDeletedZone", .tooManyParticipants: "tooManyParticipants", .alreadyShared: "alreadyShared",
            .referenceViolation: "referenceViolation", .managedAccountRestricted: "managedAccountRestricted",
            .participantMayNeedVerification: "participantMayNeedVerification", .serverResponseLost: "serverResponseLost",
            .assetNotAvailable: "assetNotAvailable", .accountTemporarilyUnavailable: "accountTemporarilyUnavailable",
            .participantAlreadyInvited: "participantAlreadyInvited",
        ]

        /// The CloudKit code for a CloudKit Web Services `serverErrorCode` (and the framework's finer codes Stratus
        /// also answers). Anything unknown is `.serverRejectedRequest`, as CloudKit reports a refusal it cannot name.
        public init(serverErrorCode: String) {
            switch serverErrorCode {
            case "ACCESS_DENIED": self = .permissionFailure
            case "ATOMIC_ERROR": self = .batchRequestFailed
            case "AUTHENTICATION_FAILED", "AUTHENTICATION_REQUIRED": self = .notAuthenticated
            case "BAD_REQUEST": self = .invalidArguments
            case "CONFLICT", "EXISTS": self = .serverRecordChanged
            case "INTERNAL_ERROR": self = .internalError
            case "NOT_FOUND": self = .unknownItem
            case "QUOTA_EXCEEDED": self = .quotaExceeded
            case "THROTTLED": self = .requestRateLimited
            case "TRY_AGAIN_LATER": self = .serviceUnavailable
            case "VALIDATING_REFERENCE_ERROR": self = .referenceViolation
            case "ZONE_NOT_FOUND": self = .zoneNotFound
            case "ZONE_BUSY": self = .zoneBusy
            case "LIMIT_EXCEEDED": self = .limitExceeded
            case "UNIQUE_FIELD_ERROR": self = .constraintViolation
            case "CHANGE_TOKEN_EXPIRED": self = .changeTokenExpired
            case "USER_DELETED_ZONE": self = .userDeletedZone
            case "ALREADY_SHARED": self = .alreadyShared
            case "TOO_MANY_PARTICIPANTS": self = .tooManyParticipants
            case "BAD_CONTAINER": self = .badContainer
            case "BAD_DATABASE": self = .badDatabase
            case "SERVER_RESPONSE_LOST": self = .serverResponseLost
            case "SERVICE_UNAVAILABLE": self = .serviceUnavailable
            default: self = .serverRejectedRequest
            }
        }
    }

    // CloudKit's static spellings, so `catch CKError.zoneBusy` and `CKError.Code` comparisons read as in apps.
    /// Mirrors `CKError.internalError`, so `catch CKError.internalError` reads as in CloudKit code.
    public static let internalError = Code.internalError
    /// Mirrors `CKError.partialFailure`, so `catch CKError.partialFailure` reads as in CloudKit code.
    public static let partialFailure = Code.partialFailure
    /// Mirrors `CKError.networkUnavailable`, so `catch CKError.networkUnavailable` reads as in CloudKit code.
    public static let networkUnavailable = Code.networkUnavailable
    /// Mirrors `CKError.networkFailure`, so `catch CKError.networkFailure` reads as in CloudKit code.
    public static let networkFailure = Code.networkFailure
    /// Mirrors `CKError.serviceUnavailable`, so `catch CKError.serviceUnavailable` reads as in CloudKit code.
    public static let serviceUnavailable = Code.serviceUnavailable
    /// Mirrors `CKError.requestRateLimited`, so `catch CKError.requestRateLimited` reads as in CloudKit code.
    public static let requestRateLimited = Code.requestRateLimited
    /// Mirrors `CKError.notAuthenticated`, so `catch CKError.notAuthenticated` reads as in CloudKit code.
    public static let notAuthenticated = Code.notAuthenticated
    /// Mirrors `CKError.permissionFailure`, so `catch CKError.permissionFailure` reads as in CloudKit code.
    public static let permissionFailure = Code.permissionFailure
    /// Mirrors `CKError.unknownItem`, so `catch CKError.unknownItem` reads as in CloudKit code.
    public static let unknownItem = Code.unknownItem
    /// Mirrors `CKError.invalidArguments`, so `catch CKError.invalidArguments` reads as in CloudKit code.
    public static let invalidArguments = Code.invalidArguments
    /// Mirrors `CKError.serverRecordChanged`, so `catch CKError.serverRecordChanged` reads as in CloudKit code.
    public static let serverRecordChanged = Code.serverRecordChanged
    /// Mirrors `CKError.serverRejectedRequest`, so `catch CKError.serverRejectedRequest` reads as in CloudKit code.
    public static let serverRejectedRequest = Code.serverRejectedRequest
    /// Mirrors `CKError.operationCancelled`, so `catch CKError.operationCancelled` reads as in CloudKit code.
    public static let operationCancelled = Code.operationCancelled
    /// Mirrors `CKError.changeTokenExpired`, so `catch CKError.changeTokenExpired` reads as in CloudKit code.
    public static let changeTokenExpired = Code.changeTokenExpired
    /// Mirrors `CKError.batchRequestFailed`, so `catch CKError.batchRequestFailed` reads as in CloudKit code.
    public static let batchRequestFailed = Code.batchRequestFailed
    /// Mirrors `CKError.zoneBusy`, so `catch CKError.zoneBusy` reads as in CloudKit code.
    public static let zoneBusy = Code.zoneBusy
    /// Mirrors `CKError.quotaExceeded`, so `catch CKError.quotaExceeded` reads as in CloudKit code.
    public static let quotaExceeded = Code.quotaExceeded
    /// Mirrors `CKError.zoneNotFound`, so `catch CKError.zoneNotFound` reads as in CloudKit code.
    public static let zoneNotFound = Code.zoneNotFound
    /// Mirrors `CKError.limitExceeded`, so `catch CKError.limitExceeded` reads as in CloudKit code.
    public static let limitExceeded = Code.limitExceeded
    /// Mirrors `CKError.userDeletedZone`, so `catch CKError.userDeletedZone` reads as in CloudKit code.
    public static let userDeletedZone = Code.userDeletedZone
    /// Mirrors `CKError.referenceViolation`, so `catch CKError.referenceViolation` reads as in CloudKit code.
    public static let referenceViolation = Code.referenceViolation
    /// Mirrors `CKError.serverResponseLost`, so `catch CKError.serverResponseLost` reads as in CloudKit code.
    public static let serverResponseLost = Code.serverResponseLost
    /// Mirrors `CKError.constraintViolation`, so `catch CKError.constraintViolation` reads as in CloudKit code.
    public static let constraintViolation = Code.constraintViolation

    /// A CloudKit error with a readable description.
    static func make(_ code: Code, _ description: String, _ extra: [String: Any] = [:]) -> CKError {
        var info = extra
        info[NSLocalizedDescriptionKey] = description
        return CKError(code, userInfo: info)
    }

    /// A per-item or top-level error dictionary from the server.
    static func from(server j: WireObject, scope: CKDatabase.Scope, zoneID: CKRecordZone.ID,
                     clientRecord: CKRecord? = nil) -> CKError {
        let server = j["serverErrorCode"]?.string ?? "INTERNAL_ERROR"
        var info: [String: Any] = [NSLocalizedDescriptionKey: j["reason"]?.string ?? server,
                                   CKErrorServerErrorCodeKey: server]
        if let r = j["retryAfter"]?.number { info[CKErrorRetryAfterKey] = NSNumber(value: r) }
        let code = Code(serverErrorCode: server)
        if code == .zoneNotFound, j["userDidResetEncryptedData"]?.bool == true { info[CKErrorUserDidResetEncryptedDataKey] = NSNumber(value: true) }
        if code == .serverRecordChanged {
            if let s = j["serverRecord"]?.object, let rec = RecordCoder.record(s, scope: scope, zoneID: zoneID,
                    assets: nil) {
                info[CKRecordChangedErrorServerRecordKey] = rec
            }
            if let c = clientRecord {
                info[CKRecordChangedErrorClientRecordKey] = c
                let ancestor = c.copyRecord()
                ancestor.values = c.ancestorValues()
                info[CKRecordChangedErrorAncestorRecordKey] = ancestor
            }
        }
        return CKError(code, userInfo: info)
    }
}

extension CKError.Code {
    /// `catch CKError.serverRecordChanged { … }`, as with CloudKit's bridged error codes.
    public static func ~= (code: CKError.Code, error: any Error) -> Bool {
        (error as? CKError)?.code == code
    }
}
