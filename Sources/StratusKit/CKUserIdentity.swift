import Foundation
import StratusJSON

/// Mirrors `CKUserIdentity`: a user as others may see them — their record ID, how they were looked up and their
/// name, only for users who made themselves discoverable (or share participants, as CloudKit allows).
public final class CKUserIdentity: NSObject, @unchecked Sendable {
    /// Mirrors `CKUserIdentity.LookupInfo`.
    public final class LookupInfo: NSObject, @unchecked Sendable {
        /// Mirrors `CKUserIdentity.LookupInfo.emailAddress`.
        public let emailAddress: String?
        /// Mirrors `CKUserIdentity.LookupInfo.phoneNumber`.
        public let phoneNumber: String?
        /// Mirrors `CKUserIdentity.LookupInfo.userRecordID`.
        public let userRecordID: CKRecord.ID?
        /// Mirrors `CKUserIdentity.LookupInfo(emailAddress:)`.
        public init(emailAddress: String) { self.emailAddress = emailAddress; phoneNumber = nil; userRecordID = nil }
        /// Mirrors `CKUserIdentity.LookupInfo(phoneNumber:)`.
        public init(phoneNumber: String) { self.phoneNumber = phoneNumber; emailAddress = nil; userRecordID = nil }
        /// Mirrors `CKUserIdentity.LookupInfo(userRecordID:)`.
        public init(userRecordID: CKRecord.ID) { self.userRecordID = userRecordID; emailAddress = nil; phoneNumber = nil }
        init(email: String?, phone: String?,
             user: CKRecord.ID?) { emailAddress = email; phoneNumber = phone; userRecordID = user }

        /// Mirrors `CKUserIdentity.LookupInfo.lookupInfos(withEmails:)`.
        public static func lookupInfos(withEmails emails: [String]) -> [LookupInfo] { emails.map(LookupInfo.init(emailAddress:)) }
        /// Mirrors `CKUserIdentity.LookupInfo.lookupInfos(withPhoneNumbers:)`.
        public static func lookupInfos(withPhoneNumbers phoneNumbers: [String]) -> [LookupInfo] { phoneNumbers.map(LookupInfo.init(phoneNumber:)) }
        /// Mirrors `CKUserIdentity.LookupInfo.lookupInfos(with:)`.
        public static func lookupInfos(with recordIDs: [CKRecord.ID]) -> [LookupInfo] { recordIDs.map(LookupInfo.init(userRecordID:)) }

        /// Equal when they look up the same person the same way (they key `shareParticipants(for:)`'s answer).
        public override func isEqual(_ object: Any?) -> Bool {
            guard let o = object as? LookupInfo else { return false }
            return o.emailAddress == emailAddress && o.phoneNumber == phoneNumber && o.userRecordID == userRecordID
        }
        /// Consistent with `isEqual(_:)`.
        public override var hash: Int {
            var h = Hasher()
            h.combine(emailAddress)
            h.combine(phoneNumber)
            h.combine(userRecordID)
            return h.finalize()
        }
    }

    /// Mirrors `CKUserIdentity.userRecordID`.
    public let userRecordID: CKRecord.ID?
    /// Mirrors `CKUserIdentity.lookupInfo`.
    public let lookupInfo: LookupInfo?
    /// Mirrors `CKUserIdentity.nameComponents`.
    public let nameComponents: PersonNameComponents?
    /// Mirrors `CKUserIdentity.hasiCloudAccount`.
    public let hasiCloudAccount: Bool

    init(lookupEmail email: String) {
        userRecordID = nil
        lookupInfo = LookupInfo(emailAddress: email)
        nameComponents = nil
        hasiCloudAccount = false
    }

    init(lookupUser id: CKRecord.ID) {
        userRecordID = id
        lookupInfo = LookupInfo(userRecordID: id)
        nameComponents = nil
        hasiCloudAccount = true
    }

    init?(wire j: WireObject) {
        let name = j["userRecordName"]?.string
        userRecordID = name.map { CKRecord.ID(recordName: $0) }
        let l = j["lookupInfo"]?.object
        lookupInfo = l.map { LookupInfo(email: $0["emailAddress"]?.string, phone: $0["phoneNumber"]?.string,
                                        user: ($0["userRecordName"]?.string).map { CKRecord.ID(recordName: $0) }) }
        if let n = j["nameComponents"]?.object {
            var c = PersonNameComponents()
            c.givenName = n["givenName"]?.string
            c.familyName = n["familyName"]?.string
            c.nickname = n["nickname"]?.string
            nameComponents = c
        } else {
            nameComponents = nil
        }
        hasiCloudAccount = name != nil
        if name == nil && lookupInfo == nil { return nil }
    }
}
