/// What one Web Services request may carry.
public enum RequestLimits {
    /// Items per request of `records/modify`, `records/lookup`, `zones/modify`, `zones/lookup`,
    /// `subscriptions/modify` and `subscriptions/lookup`: CloudKit documents 400 items per operation, and sync code
    /// splits its batches there. Above it (or above the request size limit) the answer is LIMIT_EXCEEDED.
    public static let itemsPerOperation = 400

    /// The LIMIT_EXCEEDED a request with `count` items gets above `itemsPerOperation`.
    public static func check(_ count: Int, _ what: String) throws(StratusError) {
        guard count > itemsPerOperation else { return }
        throw StratusError(.limitExceeded,
                           "a request holds at most \(itemsPerOperation) \(what); this one has \(count): split it")
    }
}
