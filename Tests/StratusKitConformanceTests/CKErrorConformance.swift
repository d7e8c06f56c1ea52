import StratusKit

/// `CKError`, every code of `CKError.Code`, and the userInfo keys and accessors apps read.
func ckErrorConformance() {
    let codes: [CKError.Code] = [
        .internalError, .partialFailure, .networkUnavailable, .networkFailure, .badContainer, .serviceUnavailable,
        .requestRateLimited, .missingEntitlement, .notAuthenticated, .permissionFailure, .unknownItem, .invalidArguments,
        .resultsTruncated, .serverRecordChanged, .serverRejectedRequest, .assetFileNotFound, .assetFileModified,
        .incompatibleVersion, .constraintViolation, .operationCancelled, .changeTokenExpired, .batchRequestFailed,
        .zoneBusy, .badDatabase, .quotaExceeded, .zoneNotFound, .limitExceeded, .userDeletedZone, .tooManyParticipants,
        .alreadyShared, .referenceViolation, .managedAccountRestricted, .participantMayNeedVerification,
        .serverResponseLost, .assetNotAvailable, .accountTemporarilyUnavailable,
    ]
    _ = codes
    let _: (CKError.Code, [String: Any]) -> CKError = CKError.init(_:userInfo:)
    let _: (CKError.Code) -> CKError = { CKError($0) }
    let _: KeyPath<CKError, CKError.Code> = \CKError.code
    let _: KeyPath<CKError, [AnyHashable: any Error]?> = \CKError.partialErrorsByItemID
    let _: KeyPath<CKError, CKRecord?> = \CKError.ancestorRecord
    let _: KeyPath<CKError, CKRecord?> = \CKError.serverRecord
    let _: KeyPath<CKError, CKRecord?> = \CKError.clientRecord
    let _: KeyPath<CKError, TimeInterval?> = \CKError.retryAfterSeconds
    let _: String = CKErrorDomain
    let _: String = CKPartialErrorsByItemIDKey
    let _: String = CKRecordChangedErrorAncestorRecordKey
    let _: String = CKRecordChangedErrorServerRecordKey
    let _: String = CKRecordChangedErrorClientRecordKey
    let _: String = CKErrorRetryAfterKey
    let _: String = CKErrorUserDidResetEncryptedDataKey
    let _: String = CKErrorDomain
}
