/// CloudKit's user records (`CKRecordTypeUserRecord`): one `Users` record per user of the app, named by their user
/// record name, in a database's default zone. It starts empty; its user adds fields by saving it (an avatar, a
/// display name). Everyone reads the public one and only its user writes it (the grants CloudKit's schema exports
/// show); nobody creates one with that type, and nobody queries the type. `roles` lists the user's custom roles
/// (each by `roleID`), kept by the server: the user cannot change it.
public enum UserRecord {
    public static let recordType = "Users"
    public static let rolesField = "roles"

    /// The type as every environment has it once a user record exists.
    public static var schema: RecordTypeSchema {
        RecordTypeSchema(name: recordType, fields: [FieldSchema(name: rolesField, type: FieldType(.int64,
                isList: true))],
                         grants: [SecurityRole.creator: .write, SecurityRole.world: .read])
    }

    /// A custom role's ID in `roles` (CloudKit lists roles by number): from its name, so the same in both
    /// environments and unchanged when other roles come and go.
    public static func roleID(_ role: String) -> Int64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in role.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return Int64(bitPattern: h & 0x7fff_ffff_ffff_ffff)
    }

    /// The `roles` value for these role names.
    public static func roles(_ names: some Sequence<String>) -> FieldValue {
        .list(.int64, names.map { roleID($0) }.sorted().map { .int64($0) })
    }
}
