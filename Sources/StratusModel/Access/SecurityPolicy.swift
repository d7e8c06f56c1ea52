/// CloudKit's security roles on the public database: permissions only add up, from `_world` (anyone),
/// `_icloud` (any signed-in user), `_creator` (whoever created the record at hand) and custom roles.
public enum SecurityPolicy {
    /// Whether `caller` may do `permission` on a record of a type with `grants`, created by `creator`
    /// (nil for a record that does not exist yet).
    public static func allows(_ permission: Permission, grants: [String: Permission], caller: Caller,
                              creator: String?) -> Bool {
        if grants[SecurityRole.world]?.contains(permission) == true { return true }
        guard let user = caller.userRecordName else { return false }
        if grants[SecurityRole.authenticated]?.contains(permission) == true { return true }
        if let creator, creator == user, grants[SecurityRole.creator]?.contains(permission) == true { return true }
        return caller.roles.contains { grants[$0]?.contains(permission) == true }
    }

    /// Throws ACCESS_DENIED unless `caller` may do `permission` on a record of `recordType`, whose grants are
    /// `grants` (CloudKit's defaults for a type not created yet).
    public static func require(_ permission: Permission, recordType: String, grants: [String: Permission]?,
                               caller: Caller, creator: String?,
                               recordName: String?) throws(StratusError) {
        guard allows(permission, grants: grants ?? SecurityRole.defaultGrants, caller: caller, creator: creator) else {
            throw denial(permission, recordType: recordType, recordName: recordName)
        }
    }

    public static func denial(_ permission: Permission, recordType: String, recordName: String?) -> StratusError {
        StratusError(.accessDenied,
                     "not allowed to \(permission.names.joined().lowercased()) records of type \(recordType)",
                recordName: recordName)
    }
}
