import StratusModel

/// What a modify batch reads first, in one statement over `zones` and `record_log`: the schema's generation, the zone
/// it writes to and the
/// change-log entries of the batch's record names there. On PostgreSQL each statement is a round trip and work on
/// the server: a one-record write read these in three.
struct ZonePrefetch {
    /// Nil when the zone does not exist (yet: a private database's default zone is made by its first write).
    var zone: ZoneRow?
    /// Every name of the batch: its live entry, or nil when it has none.
    var entries: [String: RecordWriter.Existing?]

    /// The most names one statement carries (the batch is read this way only when it has at most this many).
    static let maximumNames = 1_000

    /// The zone's columns, then the generation, then (with names) each name's entry.
    private static let zone = Selection<ZoneRow.Column>([.id, .atomic, .changeSeq], as: "z")
    private static let entry = Selection<RecordLog.Column>([.recordName, .typeID, .recordID], as: "l")

    static func read(_ s: any SQLSession, _ database: DatabaseID, zoneName: String,
                     names: [String]) throws -> (generation: Int64, ZonePrefetch) {
        var sql = "SELECT \(zone.sql), \(SchemaStorage.generationColumn)"
        sql += names.isEmpty ? " FROM (SELECT 1 AS one) o" : ", \(entry.sql) FROM (SELECT 1 AS one) o"
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
            let z = NamedRow(r, zone), e = NamedRow(r, entry, offset: z.end + 1)
            generation = r.int64(z.end) ?? 0
            if prefetch.zone == nil, let id = z.int64(.id) {
                prefetch.zone = ZoneRow(id: id, zoneID: ZoneID(zoneName: zoneName,
                                                               ownerRecordName: database.ownerRecordName),
                                        atomic: z.bool(.atomic) ?? false, changeSeq: z.int64(.changeSeq) ?? 0)
            }
            if !names.isEmpty, let name = e.string(.recordName), let type = e.int64(.typeID), let id = e.int64(.recordID) {
                prefetch.entries[name] = RecordWriter.Existing(typeID: type, recordID: id)
            }
        }
        return (generation, prefetch)
    }
}
