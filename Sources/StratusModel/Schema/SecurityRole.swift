/// The built-in security roles of the public database; custom roles are plain names beside them.
public enum SecurityRole {
    /// Anyone, signed in or not.
    public static let world = "_world"
    /// Any authenticated user.
    public static let authenticated = "_icloud"
    /// Whoever created the record at hand.
    public static let creator = "_creator"
    public static let builtIn = [world, authenticated, creator]

    public static func isBuiltIn(_ name: String) -> Bool { builtIn.contains(name) }

    /// CloudKit's grants for a new record type: the public database's norm.
    public static let defaultGrants: [String: Permission] = [creator: .write, authenticated: .create, world: .read]
}
