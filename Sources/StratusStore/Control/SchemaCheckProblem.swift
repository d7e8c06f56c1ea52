import StratusModel

/// What Production would refuse of what an app does in Development — the error apps keep shipping ("Cannot create
/// new type … in production schema"), caught before it ships: `stratus schema check` in CI, and the Deploy page.
public struct SchemaCheckProblem: Sendable, Hashable, CustomStringConvertible {
    public var recordType: String
    public var field: String?
    public var message: String
    public var description: String { message }
}
