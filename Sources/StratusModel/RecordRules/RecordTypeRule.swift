/// Which type a saved record is, and whether the save may change what it replaces: a replaced record keeps its
/// type, a new one must name one, and a `Users` record is made only by the server, for its user.
public enum RecordTypeRule {
    /// The saved record's type: the replaced record's (`old`), which a save naming another type may not change, or
    /// the one `incoming` names. `makesUserRecord`: the server making a user's `Users` record.
    public static func type(of incoming: StoredRecord, replacing old: StoredRecord?,
                            makesUserRecord: Bool) throws(StratusError) -> String {
        let name = incoming.recordName
        if let old, !incoming.recordType.isEmpty, old.recordType != incoming.recordType {
            throw StratusError(.badRequest, "record '\(name)' is a \(old.recordType), not a \(incoming.recordType)",
                               recordName: name)
        }
        let typeName = old?.recordType ?? incoming.recordType
        guard !typeName.isEmpty else { throw StratusError(.badRequest, "record '\(name)' needs a recordType",
                                                          recordName: name) }
        if typeName == UserRecord.recordType && old == nil && !makesUserRecord {
            throw StratusError(.badRequest,
                               "a Users record is the server's, made for its user: fetch yours by the ID fetchUserRecordID gives, then save it", recordName: name)
        }
        return typeName
    }

    /// Throws NOT_FOUND for an operation on a record that does not exist, unless the operation creates one. (A
    /// create that meets a record is refused with EXISTS by the writer, which carries the server's record.)
    public static func mayApply(_ type: OperationType, exists: Bool, recordName: String) throws(StratusError) {
        if !exists, !type.createsWhenMissing { throw missing(recordName) }
    }

    /// NOT_FOUND for the record of this name.
    public static func missing(_ recordName: String) -> StratusError {
        StratusError(.notFound, "record '\(recordName)' does not exist", recordName: recordName)
    }
}
