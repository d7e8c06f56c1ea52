import StratusModel

/// Bulk export: every live record of a zone streamed from the type tables to a `RecordSink` as SQLite reads it,
/// without building records and without the change log (what `stratus records export` runs for NDJSON).
extension StoredRecords {
    /// Every live record of one zone of a public or private database (of one type, when given): type by type,
    /// each in record-name order (so an export of an import of an export gives the same lines), fields in name
    /// order, in one read transaction: a consistent snapshot in constant memory. Returns how many were streamed.
    /// ENCRYPTED fields are left out unless `includeEncrypted` (their values are the app's secret).
    public func streamRecords(in database: DatabaseID, zoneID: ZoneID, type typeName: String? = nil,
                              includeEncrypted: Bool = false,
                              into sink: inout some RecordSink) throws(StratusError) -> Int {
        guard database.scope != .shared else { throw .badRequest("the shared database is exported through its owners' zones") }
        return try read { db, catalog in
            guard let zone = try SharedZones.resolve(db, database, zoneID).0 else { return 0 }
            let links = try RecordLinks.zoneHasLinks(db, zone: zone.id)
            var count = 0
            for type in catalog.types.sorted(by: { $0.name < $1.name }) where typeName == nil || type.name == typeName {
                let fields = type.fields.filter { includeEncrypted || !$0.type.encrypted }.sorted { $0.name < $1.name }
                let streamer = RowStreamer(type: type, fields: fields)
                let linkColumn = links ? CatalogType.systemColumns.count + fields.count : nil
                try TypeStatements.eachInZone(type, fields: fields, withLinks: links, zone: zone.id, db) { row in
                    try streamer.stream(row, zoneID: zone.zoneID, linkColumn: linkColumn, into: &sink)
                    count += 1
                }
            }
            return count
        }
    }
}
