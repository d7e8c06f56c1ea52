/// A user's custom roles as read under one schema generation (a role dropped from the schema stops counting).
struct RoleMembership: Sendable {
    var roles: Set<String>
    var generation: Int64
}
