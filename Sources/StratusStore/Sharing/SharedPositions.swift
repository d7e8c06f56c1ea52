import StratusModel

/// Where a participant's shared-database feed stands. The zones in it belong to many owners, and each owner's
/// changes are ordered by their own private database's counter, which other owners' writes do not wait for: one
/// number cannot say how far the feed has read, so the token holds a position per owner it spans.
struct SharedPositions: Equatable {
    /// The position of an owner the token does not name: 0 (nothing of theirs seen) in tokens made since counters
    /// are per database; the one number of a token made before, which orders below every change made since.
    var rest: Int64 = 0
    /// Each owner's position, by the tag of their private database (`SyncToken.databaseTag`).
    var byOwner: [Int64: Int64] = [:]

    /// The most owners one token names: a participant sharing with more starts their feed afresh past it.
    static let maximumOwners = 10_000

    func position(of owner: String) -> Int64 { byOwner[Self.tag(owner)] ?? rest }

    static func tag(_ owner: String) -> Int64 { SyncToken.databaseTag(.privateDatabase(of: owner)) }
}
