/// `user_usage`: the bytes each user's data takes in the environment (what is charged to whom is `UserUsage`'s).
/// Every statement on it is here.
enum UserUsageRows {
    enum Column: String, TableColumn {
        case user, bytes
    }

    /// Adds `delta` (negative for what was freed, never below zero in all) and returns the user's new total.
    private static let addSQL = """
        INSERT INTO user_usage("user", bytes) VALUES (?, ?)
        ON CONFLICT("user") DO UPDATE SET bytes = CASE WHEN user_usage.bytes + excluded.bytes > 0 THEN user_usage.bytes + excluded.bytes ELSE 0 END
        """

    static func bytes(_ user: String, _ s: any SQLSession) throws -> Int64 {
        try s.one(#"SELECT bytes FROM user_usage WHERE "user" = ?"#, [user]) { NamedRow($0,
                Selection<Column>([.bytes])).int64(.bytes) } ?? 0
    }

    static func add(_ delta: Int64, to user: String, _ s: any SQLSession) throws {
        try s.execute(addSQL, user, delta)
    }

    /// `add`, returning the user's total after it.
    static func adding(_ delta: Int64, to user: String, _ s: any SQLSession) throws -> Int64 {
        try s.one(addSQL + " RETURNING bytes", [user, delta]) { NamedRow($0,
                Selection<Column>([.bytes])).int64(.bytes) } ?? 0
    }

    static func removeAll(_ s: any SQLSession) throws {
        try s.execute("DELETE FROM user_usage")
    }
}
