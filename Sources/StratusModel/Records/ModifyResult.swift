/// The outcome of one operation in a modify batch: the saved record, a deletion, or an error for that item.
public enum ModifyResult: Sendable, Equatable {
    case saved(StoredRecord)
    /// A share record (`cloudkit.share`) that was created or changed.
    case savedShare(Share)
    case deleted(recordName: String, zoneID: ZoneID)
    case failed(StratusError)

    public var error: StratusError? { if case .failed(let e) = self { e } else { nil } }
    public var record: StoredRecord? { if case .saved(let r) = self { r } else { nil } }
}
