/// What a `zones/modify` operation does, as CloudKit spells it.
public enum ZoneOperation: String, Sendable, CaseIterable {
    case create, delete
}
