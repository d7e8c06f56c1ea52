/// The one error type of the domain. It carries CloudKit's code so that every layer above
/// (API envelope, console page, CLI message) can render it without guessing what went wrong.
public struct StratusError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var reason: String
    /// The record a per-item error concerns, so results can name it.
    public var recordName: String?
    public var zoneID: ZoneID?
    /// For CONFLICT: the record as the server has it, so a client can merge.
    public var serverRecord: StoredRecord?
    public var retryAfter: Int?
    /// For AUTHENTICATION_REQUIRED: where the user signs in.
    public var redirectURL: String?
    /// ZONE_NOT_FOUND for a zone the user's encrypted-data reset deleted (CloudKit's
    /// `CKErrorUserDidResetEncryptedDataKey`).
    public var userDidResetEncryptedData = false

    public init(_ code: ErrorCode, _ reason: String, recordName: String? = nil, zoneID: ZoneID? = nil,
                serverRecord: StoredRecord? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.reason = reason
        self.recordName = recordName
        self.zoneID = zoneID
        self.serverRecord = serverRecord
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    public static func badRequest(_ reason: String) -> StratusError { StratusError(.badRequest, reason) }
}
