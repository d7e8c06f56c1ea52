import StratusModel

extension SQLDatabase {
    /// Begins a ceremony (a web sign-in, a passkey challenge) in one transaction: `insert` answers whether the
    /// budget (`CeremonyBudget`) admitted it; past it, THROTTLED names `what`.
    func beginCeremony(_ what: String, _ insert: (any SQLSession, Int64) throws -> Bool) throws(StratusError) {
        let begun = try guarded { try write { s in try insert(s, WallClock.nowMillis()) } }
        guard begun else {
            throw StratusError(.throttled, "too many \(what) are under way: try again in a few minutes", retryAfter: 60)
        }
    }

    /// Takes a ceremony once, in one transaction.
    func takeCeremony<T>(_ take: (any SQLSession, Int64) throws -> T?) throws(StratusError) -> T? {
        try guarded { try write { s in try take(s, WallClock.nowMillis()) } }
    }
}
