import StratusPostgres

/// Whole tables copied between databases of either engine, whatever their columns (`stratus migrate`, portable
/// backups and their restores): the engine's list of a table's columns, its rows streamed out and written in
/// (COPY on PostgreSQL, a cursor and multi-row INSERTs on SQLite), and identity columns set past what was copied.
enum TableCopy {
    /// What the engines' catalogs are read as.
    enum CatalogColumn: String, TableColumn {
        case name, columnName = "column_name"
    }

    enum IdentityColumn: String, TableColumn {
        case table = "table_name", column = "column_name"
    }

    /// The columns of `table` in the session's database, in their order.
    static func columns(_ table: String, _ s: any SQLSession) throws -> [String] {
        switch s.dialect {
        case .sqlite: try s.all("SELECT name FROM pragma_table_info(?)", [table]) { NamedRow($0,
                Selection<CatalogColumn>([.name])).string(.name) }
        case .postgres:
            try s.all("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
                      [table]) { NamedRow($0, Selection<CatalogColumn>([.columnName])).string(.columnName) }
        }
    }

    /// Writes into `table` (its `names` columns) the rows `rows` hands to the function it is given: with COPY on
    /// PostgreSQL, multi-row INSERTs on SQLite.
    static func writeRows(_ table: String, _ names: [String], into t: any SQLSession,
                          _ rows: (_ add: ([SQLValue]) throws -> Void) throws -> Void) throws {
        if let pg = t as? PostgresSession, let kinds = try PostgresCopy.kinds(table, names, pg) {
            try PostgresCopy.write(table, names, kinds, pg, rows)
            return
        }
        let list = names.map { "\"\($0)\"" }.joined(separator: ", ")
        let rowsPerStatement = max(1, min(500, 20_000 / names.count))
        var pending: [SQLValue] = []
        func flush() throws {
            guard !pending.isEmpty else { return }
            let count = pending.count / names.count
            let tuple = "(" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
            try t.execute("INSERT INTO \(table)(\(list)) VALUES " + Array(repeating: tuple,
                    count: count).joined(separator: ", "), pending)
            pending.removeAll(keepingCapacity: true)
        }
        try rows { row in
            pending += row
            if pending.count >= rowsPerStatement * names.count { try flush() }
        }
        try flush()
    }

    /// Every row of `table` (its `columns`), as the session's engine streams it: COPY on PostgreSQL, a cursor on
    /// SQLite.
    static func eachRow(of table: String, _ columns: [String], in s: any SQLSession,
                        _ body: ([SQLValue]) throws -> Void) throws {
        if let pg = s as? PostgresSession, let kinds = try PostgresCopy.kinds(table, columns, pg) {
            try PostgresCopy.read(table, columns, kinds, pg, body)
        } else {
            try s.each("SELECT \(columns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \(table)",
                       []) { r in try body(columns.indices.map { r.sqlValue($0) }) }
        }
    }

    /// PostgreSQL identity columns continue after the copied ids (SQLite's keys need nothing).
    static func resetIdentities(_ t: any SQLSession) throws {
        guard t.dialect == .postgres else { return }
        let columns = Selection<IdentityColumn>([.table, .column])
        let identities = try t.all("""
            SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'
            """) { r in
            let row = NamedRow(r, columns)
            return (row.string(.table) ?? "", row.string(.column) ?? "")
        }
        for (table, column) in identities {
            try t.execute("SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT MAX(\"\(column)\") FROM \"\(table)\"), 0) + 1, false)", [.text(table), .text(column)])
        }
    }

    /// Deletes every row of `table` (a target that migrations may have seeded).
    static func clear(_ table: String, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM \(table)", [])
    }

    static func count(_ table: String, _ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT count(*) FROM \(table)") ?? -1
    }

    static func hasRows(_ table: String, _ s: any SQLSession) throws -> Bool {
        try s.exists("SELECT 1 FROM \(table) LIMIT 1")
    }
}
