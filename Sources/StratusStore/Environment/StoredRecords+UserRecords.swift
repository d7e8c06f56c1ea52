import Foundation
import StratusModel

/// User records (see `UserRecord`): made, empty, the first time their user asks for one.
extension StoredRecords {
    /// `user`'s `Users` record in the public database or in their own private database; made (empty, created by
    /// them) when it does not exist yet, as CloudKit has one for every user of the app.
    public func userRecord(of user: String, in database: DatabaseID) throws(StratusError) -> StoredRecord {
        guard database.scope == .public || (database.scope == .private && database.ownerRecordName == user) else {
            throw StratusError(.badRequest, "a user record lives in the public database or its user's private database")
        }
        if case .success(let r)? = try lookup([user], in: database).first { return r }
        var op = RecordOperation(.create, StoredRecord(recordName: user, recordType: UserRecord.recordType))
        op.makesUserRecord = true
        // Two first requests at once: one makes it, the other finds it made.
        if case .failed(let e)? = try modify([op], in: database,
                                             actor: RequestActor(userRecordName: user)).first, e.code != .exists { throw e }
        guard case .success(let r)? = try lookup([user], in: database).first else {
            throw StratusError(.internalError, "the user record of \(user) was not made")
        }
        return r
    }

    /// A `Users` record as read: `roles` from the user's custom roles in this environment (never stored).
    func withRoles(_ record: StoredRecord, catalog: Catalog, _ db: any SQLSession) throws -> StoredRecord {
        guard record.recordType == UserRecord.recordType else { return record }
        var r = record
        let held = try RoleMembers.roles(of: record.recordName, db).intersection(catalog.roles)
        r.fields[UserRecord.rolesField] = held.isEmpty ? nil : UserRecord.roles(held)
        return r
    }
}
