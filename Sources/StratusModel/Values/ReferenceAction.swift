public enum ReferenceAction: String, Sendable, Codable, Hashable, CaseIterable {
    case none = "NONE"
    /// Deleting the target deletes the record holding this reference.
    case deleteSelf = "DELETE_SELF"
    /// The target must exist when the reference is saved.
    case validate = "VALIDATE"
}
