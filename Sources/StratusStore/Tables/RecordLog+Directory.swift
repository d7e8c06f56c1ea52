import StratusModel

/// The lookup's one statement over `zones` and `record_log` (on PostgreSQL each statement is a round trip): a zone,
/// whether any of its records has links, the directory entries of some names in it and the schema's generation,
/// with, when a lookup guessed the type, that type's rows of the names in the same statement.
extension RecordLog {
    private static let directoryZone = Selection<ZoneRow.Column>([.id, .atomic, .changeSeq], as: "z")
    private static let directoryEntry = Selection<Column>([.typeID, .recordID], as: "l")

    /// Where a guessed type's row starts in a directory row: after the zone, its links flag, the entry and the
    /// generation.
    static let directoryColumns = directoryZone.columns.count + 1 + directoryEntry.columns.count + 1

    /// The live zone `zoneName` of `database` (nil when there is none), whether any record of it has links
    /// (parents, shares), the entries of `names` in it grouped by type, and the schema's generation. With a
    /// `guess`, the rows of the names that are records of its type go to `guessed` (from `directoryColumns` on)
    /// instead of into the entries, when the guess was made from the catalog of the generation the statement read.
    static func directory(_ names: [String], zoneName: String, in database: DatabaseID, guess: LookupGuess.Guess?,
                          _ db: any SQLSession,
                          guessed: (any SQLRow, ZoneID) throws -> Void) throws -> (ZoneRow, [Int64: [Int64]], Bool,
                                  Int64)? {
        var zone: ZoneRow?
        var hasLinks = false
        var generation: Int64 = 0
        var idsByType: [Int64: [Int64]] = [:]
        let indexed = db.dialect == .sqlite ? " INDEXED BY record_log_name" : ""
        var sql = """
            SELECT \(directoryZone.sql), CASE WHEN EXISTS (SELECT 1 FROM record_links k WHERE k.zone_id = z.id) THEN 1 ELSE 0 END,
                \(directoryEntry.sql), \(SchemaStorage.generationColumn)
            """
        if let guess { sql += ", " + guess.selectList }
        sql += " FROM zones z LEFT JOIN record_log l\(indexed) ON l.zone_id = z.id AND l.deleted = 0 AND l.record_name IN (\(Array(repeating: "?", count: names.count).joined(separator: ",")))"
        if let guess { sql += guess.join }
        sql += " WHERE z.scope = ? AND z.owner = ? AND z.name = ? AND z.deleted = 0"
        let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: database.ownerRecordName)
        try db.eachOfPage(sql, names.map { .text($0) } + [.text(database.scope.rawValue),
                                                          .text(database.ownerRecordName), .text(zoneName)]) { r in
            let z = NamedRow(r, directoryZone), entry = NamedRow(r, directoryEntry, offset: z.end + 1)
            if zone == nil {
                zone = ZoneRow(id: z.int64(.id) ?? 0, zoneID: zoneID, atomic: z.bool(.atomic) ?? false,
                               changeSeq: z.int64(.changeSeq) ?? 0)
                hasLinks = r.bool(z.end) ?? false
                generation = r.int64(entry.end) ?? 0
            }
            guard let type = entry.int64(.typeID), let id = entry.int64(.recordID) else { return }
            if let guess, type == guess.type.id, generation == guess.generation, !r.isNull(directoryColumns) {
                try guessed(r, zoneID)
            } else {
                idsByType[type, default: []].append(id)
            }
        }
        return zone.map { ($0, idsByType, hasLinks, generation) }
    }
}
