import StratusModel

/// `admin_roles` (control database): the role each administrator holds per container, or in every container
/// (`container` = `*`). Every statement on it is here, and the migration that made it, in which every
/// administrator already there became an owner of every container.
enum AdminRoleRows {
    enum Column: String, TableColumn {
        case adminID = "admin_id", container, role
    }

    static let everywhere = "*"

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v30-admin-roles") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE admin_roles(admin_id INTEGER NOT NULL, container TEXT NOT NULL, role TEXT NOT NULL,
                    PRIMARY KEY(admin_id, container)) WITHOUT ROWID;
                INSERT INTO admin_roles(admin_id, container, role) SELECT id, '*', 'owner' FROM admins;
                """))
        }
    }

    private static let grant = Selection<Column>([.adminID, .container, .role])

    /// Every administrator's roles, by admin id.
    static func all(_ s: any SQLSession) throws -> [Int64: AdminRoles] {
        var roles: [Int64: AdminRoles] = [:]
        for (id, container, role) in try s.all("SELECT \(grant.sql) FROM admin_roles", [], row) {
            roles[id, default: AdminRoles()].hold(role, in: container)
        }
        return roles
    }

    static func of(_ admin: Int64, _ s: any SQLSession) throws -> AdminRoles {
        var roles = AdminRoles()
        for (_, container, role) in try s.all("SELECT \(grant.sql) FROM admin_roles WHERE admin_id = ?", [admin], row) {
            roles.hold(role, in: container)
        }
        return roles
    }

    private static func row(_ r: any SQLRow) -> (Int64, String, AdminRole)? {
        let row = NamedRow(r, grant)
        guard let id = row.int64(.adminID), let role = AdminRole(rawValue: row.string(.role) ?? "") else { return nil }
        return (id, row.string(.container) ?? "", role)
    }

    /// Grants `role` in `container` (nil: every container), replacing the one held there.
    static func grant(_ role: AdminRole, to admin: Int64, in container: ContainerID?, _ s: any SQLSession) throws {
        try s.execute("""
            INSERT INTO admin_roles(admin_id, container, role) VALUES (?, ?, ?)
            ON CONFLICT(admin_id, container) DO UPDATE SET role = excluded.role
            """, admin, container?.rawValue ?? everywhere, role.rawValue)
    }

    /// False when the administrator held no role there.
    static func revoke(from admin: Int64, in container: ContainerID?, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM admin_roles WHERE admin_id = ? AND container = ?", admin,
                      container?.rawValue ?? everywhere) > 0
    }

    static func revokeAll(from admin: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM admin_roles WHERE admin_id = ?", admin)
    }

    /// Refuses (BAD_REQUEST) a change that would leave no owner of every container once `admin` is not one.
    /// Deleting the last administrator of all is no such change: the server is then set up anew, as at first.
    static func keepsAnOwner(without admin: Int64, deleting: Bool = false, _ s: any SQLSession) throws {
        guard try of(admin, s).everywhere == .owner, try owners(s) <= 1 else { return }
        if deleting, !(try s.exists("SELECT 1 FROM admins WHERE id <> ?", [admin])) { return }
        throw StratusError.badRequest("that is the last owner of every container: grant another owner first")
    }

    /// How many administrators own every container.
    static func owners(_ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT COUNT(*) FROM admin_roles WHERE container = '*' AND role = 'owner'") ?? 0
    }
}

extension AdminRoles {
    /// One `admin_roles` row's role, its container as stored (`*`: every container).
    mutating func hold(_ role: AdminRole, in container: String) {
        if container == AdminRoleRows.everywhere { everywhere = role }
        else if let c = try? ContainerID(container) { containers[c] = role }
    }
}
