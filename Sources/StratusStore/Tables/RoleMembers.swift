/// `role_members`: which users hold which of the schema's custom security roles. Every statement on it is here
/// (the schema reset empties it with the environment's other data, `SchemaStore`).
enum RoleMembers {
    enum Column: String, TableColumn {
        case role, user
    }

    /// The roles `user` holds (those the schema no longer defines included: callers intersect with the catalog's).
    static func roles(of user: String, _ s: any SQLSession) throws -> Set<String> {
        Set(try s.all(#"SELECT role FROM role_members WHERE "user" = ?"#, [user]) { NamedRow($0,
                Selection<Column>([.role])).string(.role) })
    }

    /// The users holding `role`, by name.
    static func users(holding role: String, _ s: any SQLSession) throws -> [String] {
        try s.all(#"SELECT "user" FROM role_members WHERE role = ? ORDER BY "user""#, [role]) { NamedRow($0,
                Selection<Column>([.user])).string(.user) }
    }

    static func grant(_ role: String, to user: String, _ s: any SQLSession) throws {
        try s.execute(#"INSERT INTO role_members(role, "user") VALUES (?, ?) ON CONFLICT DO NOTHING"#, role, user)
    }

    static func revoke(_ role: String, from user: String, _ s: any SQLSession) throws {
        try s.execute(#"DELETE FROM role_members WHERE role = ? AND "user" = ?"#, role, user)
    }
}
