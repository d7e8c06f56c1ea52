/// One database inside a container environment: the public one, or a user's private or shared one.
/// The owner is the user whose private/shared database it is; the public database has none.
public struct DatabaseID: Hashable, Sendable, Codable {
    public var scope: DatabaseScope
    public var ownerRecordName: String

    /// The owner string that marks the public database in storage.
    public static let publicOwner = "_defaultOwner"

    public static let publicDatabase = DatabaseID(scope: .public, ownerRecordName: publicOwner)

    public init(scope: DatabaseScope, ownerRecordName: String) {
        self.scope = scope
        self.ownerRecordName = scope == .public ? DatabaseID.publicOwner : ownerRecordName
    }

    public static func privateDatabase(of user: String) -> DatabaseID { DatabaseID(scope: .private,
            ownerRecordName: user) }
    public static func sharedDatabase(of user: String) -> DatabaseID { DatabaseID(scope: .shared,
            ownerRecordName: user) }
}
