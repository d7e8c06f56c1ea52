/// What `/-/metrics` shows of the server's connections (see `ConnectionBudget`).
public struct ConnectionFigures: Sendable {
    /// Open now, and the limits: in all, and from one client address.
    public var open, limit, perAddress: Int
    /// Since the start: refused for their address's share, refused at the total, and idle ones closed to make room.
    public var refusedForAddress, refusedForTotal, evicted: Int
}

extension ConnectionFigures {
    /// Nothing open, no limits known (a server not built yet).
    public static let none = ConnectionFigures(open: 0, limit: 0, perAddress: 0, refusedForAddress: 0,
                                               refusedForTotal: 0, evicted: 0)
}
