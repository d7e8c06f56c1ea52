/// `records/modify` operation types, with CloudKit's semantics.
public enum OperationType: String, Sendable, Codable, CaseIterable {
    /// Fails with EXISTS if the record exists.
    case create
    /// Changes only the listed fields; needs the current change tag.
    case update
    /// Like update without the tag check; creates the record if it is missing.
    case forceUpdate
    /// Unlisted fields become null; needs the current change tag.
    case replace
    /// Like replace without the tag check; creates the record if it is missing.
    case forceReplace
    case delete
    case forceDelete

    public var needsChangeTag: Bool { self == .update || self == .replace || self == .delete }
    public var isDelete: Bool { self == .delete || self == .forceDelete }
    public var replacesAllFields: Bool { self == .replace || self == .forceReplace }
    public var createsWhenMissing: Bool { self == .create || self == .forceUpdate || self == .forceReplace }
}
