import StratusModel

/// One page of a participant's shared-database feed: zones changed or joined, zones that left, each owner's
/// position after the page and whether more follow.
struct SharedDatabaseChanges {
    struct Event {
        var seq: Int64
        var owner: String
        var zone: ZoneRow?
        var deleted: ZoneID?
    }

    var changed: [ZoneRow]
    var deleted: [ZoneID]
    var positions: SharedPositions
    var more: Bool
}
