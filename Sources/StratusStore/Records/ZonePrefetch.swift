import StratusModel

/// What a modify batch reads first, in one statement: the schema's generation, the zone it writes to and the
/// change-log entries of the batch's record names there. On PostgreSQL each statement is a round trip and work on
/// the server: a one-record write read these in three.
struct ZonePrefetch {
    /// Nil when the zone does not exist (yet: a private database's default zone is made by its first write).
    var zone: ZoneRow?
    /// Every name of the batch: its live entry, or nil when it has none.
    var entries: [String: RecordWriter.Existing?]

    /// The most names one statement carries (the batch is read this way only when it has at most this many).
    static let maximumNames = 1_000

    static func read(_ s: any SQLSession, _ database: DatabaseID, zoneName: String, names: [String]) throws -> (generation: Int64, ZonePrefetch) {
        var sql = "SELECT \(SchemaStorage.generationColumn), z.id, z.atomic, z.change_seq"
        sql += names.isEmpty ? " FROM (SELECT 1 AS one) o" : ", l.record_name, l.type_id, l.record_id FROM (SELECT 1 AS one) o"
        sql += " LEFT JOIN zones z ON z.scope = ? AND z.owner = ? AND z.name = ? AND z.deleted = 0"
        var arguments: [SQLValue] = [.text(database.scope.rawValue), .text(database.ownerRecordName), .text(zoneName)]
        if !names.isEmpty {
            let indexed = s.dialect == .sqlite ? " INDEXED BY record_log_name" : ""
            sql += " LEFT JOIN record_log l\(indexed) ON l.zone_id = z.id AND l.deleted = 0 AND l.record_name IN (\(Array(repeating: "?", count: names.count).joined(separator: ",")))"
            for n in names { arguments.append(.text(n)) }
        }
        var generation: Int64 = 0
        var prefetch = ZonePrefetch(zone: nil, entries: Dictionary(minimumCapacity: names.count))
        for n in names { prefetch.entries[n] = .some(nil) }
        try s.eachOfPage(sql, arguments) { r in
            generation = r.int64(0) ?? 0
            if prefetch.zone == nil, let id = r.int64(1) {
                prefetch.zone = ZoneRow(id: id, zoneID: ZoneID(zoneName: zoneName, ownerRecordName: database.ownerRecordName),
                                        atomic: r.bool(2) ?? false, changeSeq: r.int64(3) ?? 0)
            }
            if !names.isEmpty, let name = r.string(4), let type = r.int64(5), let id = r.int64(6) {
                prefetch.entries[name] = RecordWriter.Existing(typeID: type, recordID: id)
            }
        }
        return (generation, prefetch)
    }
}
