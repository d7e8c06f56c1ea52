import StratusModel

/// Errors of the API layer are `StratusError`s too; these helpers name the common ones.
public typealias APIError = StratusError

extension StratusError {
    static func authenticationRequired(_ reason: String) -> StratusError { StratusError(.authenticationRequired,
            reason) }
    static func authenticationFailed(_ reason: String) -> StratusError { StratusError(.authenticationFailed, reason) }
}

extension StratusError {
    /// Any error as a `StratusError`: ours as they are; anything else an internal error whose details stay
    /// in the server (a client's mistake is always one of ours, so it never lands here as a 500).
    static func wrapping(_ error: any Error) -> StratusError {
        error as? StratusError ?? StratusError(.internalError, "internal error")
    }

    /// The same error, naming the zone it concerns (per-zone results echo the zone).
    func concerning(zone: ZoneID) -> StratusError {
        var e = self
        e.zoneID = zone
        return e
    }
}
