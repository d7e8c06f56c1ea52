/// `cascade_refs`: the DELETE_SELF references, target → source, so that deleting a record finds the records that
/// go with it without reading every record. Every statement on it is here.
enum CascadeRefs {
    enum Column: String, TableColumn {
        case targetZone = "target_zone", targetName = "target_name", sourceType = "source_type"
        case sourceID = "source_id"
    }

    /// The record `source` (of type `sourceType`) goes when the record `targetName` in `targetZone` does.
    static func add(_ s: any SQLSession, targetZone: Int64, targetName: String, sourceType: Int64,
                    sourceID: Int64) throws {
        try s.enqueue("INSERT INTO cascade_refs(target_zone, target_name, source_type, source_id) VALUES (?, ?, ?, ?)",
                      targetZone, targetName, sourceType, sourceID)
    }

    /// Forgets a record's own references (it changed or went).
    static func removeSource(_ s: any SQLSession, type: Int64, id: Int64) throws {
        try s.enqueue("DELETE FROM cascade_refs WHERE source_type = ? AND source_id = ?", type, id)
    }

    /// The records that go with the record `name` in `zone`: (type id, record id).
    static func dependents(_ s: any SQLSession, zone: Int64, name: String) throws -> [(type: Int64, id: Int64)] {
        let columns = Selection<Column>([.sourceType, .sourceID])
        return try s.all("SELECT \(columns.sql) FROM cascade_refs WHERE target_zone = ? AND target_name = ?", [zone,
                name]) { r in
            let row = NamedRow(r, columns)
            return (row.int64(.sourceType) ?? 0, row.int64(.sourceID) ?? 0)
        }
    }

    /// Forgets the references of a type's records in a zone, and those into the zone (the zone is cleared).
    static func clear(_ s: any SQLSession, zone: Int64, sourceTable: String, sourceType: Int64) throws {
        try s.execute("DELETE FROM cascade_refs WHERE source_type = ? AND source_id IN (SELECT id FROM \(sourceTable) WHERE zone_id = ?)", sourceType, zone)
    }

    /// Forgets the references into a zone.
    static func clearTargets(_ s: any SQLSession, zone: Int64) throws {
        try s.execute("DELETE FROM cascade_refs WHERE target_zone = ?", zone)
    }

    /// Forgets a type's references (the type is dropped).
    static func clear(_ s: any SQLSession, sourceType: Int64) throws {
        try s.execute("DELETE FROM cascade_refs WHERE source_type = ?", sourceType)
    }
}
