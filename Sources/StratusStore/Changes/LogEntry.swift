/// One row of a zone's change log as a change feed reads it.
struct LogEntry {
    var seq, typeID, recordID: Int64
    /// The record's name when the entry is a deletion (nil for a change, whose record is read in full).
    var deletedName: String?
}
