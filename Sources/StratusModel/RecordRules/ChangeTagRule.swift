/// CloudKit's optimistic locking: a save or delete that must not overwrite someone else's change sends the change
/// tag it read, and is refused with the server's record when the record has changed since (or when it sent none).
public enum ChangeTagRule {
    /// Throws CONFLICT, carrying `server`, unless `sent` carries the server record's change tag.
    public static func check(_ sent: StoredRecord, server: StoredRecord?) throws(StratusError) {
        guard let tag = sent.recordChangeTag, !tag.isEmpty else {
            throw StratusError(.conflict, "record '\(sent.recordName)' exists; send its recordChangeTag to change it",
                               recordName: sent.recordName, serverRecord: server)
        }
        guard tag == server?.recordChangeTag else {
            throw StratusError(.conflict,
                               "record '\(sent.recordName)' was changed since tag \(tag.prefix(20)); server has \(server?.recordChangeTag ?? "none")",
                               recordName: sent.recordName, serverRecord: server)
        }
    }
}
