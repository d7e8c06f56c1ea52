/// What one write batch charges each user (see `UserUsage`): checked against their cap as the batch goes, and
/// written once at its end. Each user's usage is read once per batch, however many records are charged to them.
struct UsageLedger {
    /// The most one user's data may take; nil: charged, never refused (the server's own writes).
    var limit: Int64?
    /// Each user's change in this batch (negative for what was freed).
    private var deltas: [String: Int64] = [:]
    /// Users' usage as the batch found it.
    private var before: [String: Int64] = [:]

    /// Refuses `bytes` more for `user` when that would take them past the cap (what shrinks always fits).
    /// `credit`: what `user` is charged now that this charge replaces (uploads a record attaches).
    mutating func check(_ user: String, adding bytes: Int64, credit: Int64 = 0, recordName: String,
                        _ s: any SQLSession) throws {
        guard let limit, bytes > 0 else { return }
        let found = try before[user] ?? UserUsage.bytes(user, s)
        before[user] = found
        let using = found + deltas[user, default: 0] - credit
        if using + bytes > limit { throw UserUsage.refusal(user, using: using, adding: bytes, limit: limit,
                                                           recordName: recordName) }
    }

    mutating func add(_ bytes: Int64, to user: String) { deltas[user, default: 0] += bytes }

    /// Writes the batch's changes, in its transaction.
    func write(_ s: any SQLSession) throws { try UserUsage.add(deltas, s) }
}
