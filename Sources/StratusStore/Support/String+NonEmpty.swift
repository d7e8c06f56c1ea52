extension String {
    /// nil for the empty string, so `??` can supply a fallback.
    var nonEmpty: String? { isEmpty ? nil : self }
}
