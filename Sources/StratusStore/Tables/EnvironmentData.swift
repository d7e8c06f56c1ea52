/// What an environment's reset empties: every table of its records, zones, assets, shares, roles' members, change
/// logs and learned indexes (the record types' own tables are dropped by `SchemaStorage`). Its subscriptions,
/// tokens and notifications stay: they are its users', not its data.
enum EnvironmentData {
    static func empty(_ s: any SQLSession) throws {
        try s.script("""
            DELETE FROM record_types; DELETE FROM fields; DELETE FROM roles; DELETE FROM record_log; DELETE FROM cascade_refs;
            DELETE FROM assets; DELETE FROM record_counts; DELETE FROM role_members;
            DELETE FROM shares; DELETE FROM share_participants; DELETE FROM record_links; DELETE FROM shared_zone_log;
            DELETE FROM auto_indexes; DELETE FROM query_shapes;
            """)
    }
}
