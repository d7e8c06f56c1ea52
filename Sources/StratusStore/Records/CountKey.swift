/// A cell of `record_counts`: one record type in one zone.
struct CountKey: Hashable {
    var zone, type: Int64
}
