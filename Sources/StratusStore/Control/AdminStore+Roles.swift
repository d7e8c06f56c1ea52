import StratusModel

/// Administrators' roles: what each may do, per container or in every container. The first administrator is an
/// owner; one made later holds no role until an owner grants one; the last owner of every container stays one.
extension AdminStore {
    public func roles(of admin: Admin) throws(StratusError) -> AdminRoles {
        try guarded { try control.read { s in try AdminRoleRows.of(admin.id, s) } }
    }

    /// Every administrator with their roles, by email.
    public func allWithRoles() throws(StratusError) -> [(admin: Admin, roles: AdminRoles)] {
        try guarded {
            try control.read { s in
                let roles = try AdminRoleRows.all(s)
                return try AdminRows.all(s).map { ($0, roles[$0.id] ?? AdminRoles()) }
            }
        }
    }

    /// Grants `role` in `container` (nil: every container), replacing the one held there; NOT_FOUND without such
    /// an administrator, BAD_REQUEST when it would leave no owner of every container.
    public func grant(_ role: AdminRole, email: String, container: ContainerID?) throws(StratusError) {
        try guarded {
            try control.write { s in
                let id = try adminID(s, email: email)
                if container == nil, role != .owner { try AdminRoleRows.keepsAnOwner(without: id, s) }
                try AdminRoleRows.grant(role, to: id, in: container, s)
            }
        }
    }

    /// Takes the role held in `container` (nil: the one over every container); NOT_FOUND when none was held.
    public func revoke(email: String, container: ContainerID?) throws(StratusError) {
        try guarded {
            try control.write { s in
                let id = try adminID(s, email: email)
                if container == nil { try AdminRoleRows.keepsAnOwner(without: id, s) }
                guard try AdminRoleRows.revoke(from: id, in: container, s) else {
                    throw StratusError(.notFound, "\(email.prefix(100)) holds no role "
                                       + (container.map { "in \($0)" } ?? "over every container"))
                }
            }
        }
    }
}
