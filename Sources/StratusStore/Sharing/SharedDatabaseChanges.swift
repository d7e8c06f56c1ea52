import StratusModel

/// One page of a participant's shared-database feed: zones changed or joined, zones that left, the last change
/// on the page and whether more follow.
struct SharedDatabaseChanges {
    struct Event {
        var seq: Int64
        var zone: ZoneRow?
        var deleted: ZoneID?
    }

    var changed: [ZoneRow]
    var deleted: [ZoneID]
    var last: Int64
    var more: Bool
}
