import StratusModel

/// A LOCATION field's index table on SQLite: one row per record with a location, keyed by (cell, id) (see
/// `GeoCell`), with the coordinates beside the key so a box is checked without reading the record's row.
/// PostgreSQL keeps its `point` table with a GiST index.
enum GeoCellTable {
    enum Column: String, TableColumn {
        case cell, id, lat, lon
    }

    /// A record's point as `fill` reads it from the record's table (its coordinate columns named `lat` and `lon`).
    private static let point = Selection<Column>([.id, .lat, .lon])

    static func create(_ table: String, _ s: any SQLSession) throws {
        try s.script("CREATE TABLE \(table)(cell INTEGER NOT NULL, id INTEGER NOT NULL, lat REAL NOT NULL, lon REAL NOT NULL, PRIMARY KEY(cell, id)) WITHOUT ROWID")
    }

    static func insert(_ table: String) -> String { "INSERT INTO \(table)(cell, id, lat, lon) VALUES (?, ?, ?, ?)" }
    static func delete(_ table: String) -> String { "DELETE FROM \(table) WHERE cell = ? AND id = ?" }

    static func insertArguments(_ id: Int64, _ l: Location) -> [SQLValue] {
        [.int64(GeoCell.cell(latitude: l.latitude, longitude: l.longitude)), .int64(id), .double(l.latitude),
         .double(l.longitude)]
    }

    static func deleteArguments(_ id: Int64, _ l: Location) -> [SQLValue] {
        [.int64(GeoCell.cell(latitude: l.latitude, longitude: l.longitude)), .int64(id)]
    }

    /// Rows per chunk held in memory while filling from existing rows (about 10 MB), and per INSERT.
    static let chunkCapacity = 1 << 18
    static let rowsPerStatement = 500

    /// Fills the table from the record table's coordinate columns, a bounded chunk at a time, each chunk written
    /// in key order (as `ListKeyChunk` does for lists): in record order each insert would be a random page.
    static func fill(_ table: String, from recordTable: String, latitude: String, longitude: String,
                     _ s: any SQLSession) throws {
        var rows: [(cell: Int64, id: Int64, lat: Double, lon: Double)] = []
        rows.reserveCapacity(chunkCapacity)
        let full = insertRows(table, rowsPerStatement)
        var arguments: [SQLValue] = []
        arguments.reserveCapacity(rowsPerStatement * 4)
        func flush() throws {
            rows.sort { $0.cell == $1.cell ? $0.id < $1.id : $0.cell < $1.cell }
            for start in stride(from: 0, to: rows.count, by: rowsPerStatement) {
                let end = min(start + rowsPerStatement, rows.count)
                arguments.removeAll(keepingCapacity: true)
                for r in rows[start..<end] { arguments += [.int64(r.cell), .int64(r.id), .double(r.lat),
                                                           .double(r.lon)] }
                try s.execute(end - start == rowsPerStatement ? full : insertRows(table, end - start), arguments)
            }
            rows.removeAll(keepingCapacity: true)
        }
        try s.each("SELECT id, \(latitude) AS lat, \(longitude) AS lon FROM \(recordTable) WHERE \(latitude) IS NOT NULL", []) { r in
            let row = NamedRow(r, Self.point)
            let id = row.int64(.id) ?? 0, lat = row.double(.lat) ?? 0, lon = row.double(.lon) ?? 0
            rows.append((GeoCell.cell(latitude: lat, longitude: lon), id, lat, lon))
            if rows.count >= chunkCapacity { try flush() }
        }
        try flush()
    }

    private static func insertRows(_ table: String, _ count: Int) -> String {
        "INSERT INTO \(table)(cell, id, lat, lon) VALUES " + Array(repeating: "(?, ?, ?, ?)",
                                                                   count: count).joined(separator: ", ")
    }

    /// Cell ranges a near query looks up, whatever its box: the statement's text stays the same for every query.
    /// Unused slots hold an empty range (one seek that finds nothing): repeating a real range read its entries
    /// again, four times the index entries of the R*Tree at a million points.
    static let slots = 16

    /// The ids inside the boxes (each `(minLat, maxLat, minLon, maxLon)`), as a subquery and its arguments.
    static func within(_ table: String, boxes: [(Double, Double, Double, Double)]) -> (sql: String,
            arguments: [SQLValue]) {
        var slotted: [(ClosedRange<Int64>, (Double, Double, Double, Double))] = []
        for box in boxes {
            for r in GeoCell.cover(minLatitude: box.0, maxLatitude: box.1, minLongitude: box.2, maxLongitude: box.3,
                                   maxCells: slots / max(1, boxes.count)) {
                slotted.append((r, box))
            }
        }
        var arguments: [SQLValue] = []
        arguments.reserveCapacity(slots * 6)
        for (r, b) in slotted.prefix(slots) {
            arguments += [.int64(r.lowerBound), .int64(r.upperBound), .double(b.0), .double(b.1), .double(b.2),
                          .double(b.3)]
        }
        while arguments.count < slots * 6 { arguments += [.int64(1), .int64(0), .double(0), .double(0), .double(0),
                                                          .double(0)] }
        return (withinSQL(table), arguments)
    }

    private static func withinSQL(_ table: String) -> String {
        Array(repeating: "SELECT id FROM \(table) WHERE cell BETWEEN ? AND ? AND lat BETWEEN ? AND ? AND lon BETWEEN ? AND ?", count: slots)
            .joined(separator: " UNION ALL ")
    }
}
