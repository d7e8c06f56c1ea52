import StratusModel

/// Errors of the API layer are `StratusError`s too; these helpers name the common ones.
public typealias APIError = StratusError

extension StratusError {
    static func authenticationRequired(_ reason: String) -> StratusError { StratusError(.authenticationRequired, reason) }
    static func authenticationFailed(_ reason: String) -> StratusError { StratusError(.authenticationFailed, reason) }
}
