import Foundation

/// Where a streamed response body goes: `write` answers false once the client has gone, `isOpen` turns false as
/// soon as the client closes its end (without waiting for a write to fail), and `isDraining` turns true when the
/// server is stopping, so a long stream ends and lets the stop complete.
public struct ResponseStream: Sendable {
    public let write: @Sendable (Data) async -> Bool
    public let isDraining, isOpen: @Sendable () -> Bool
    /// Runs `action` once the client closes its end (at once if it already has): a stream waiting for something to
    /// send uses it to wake and end.
    public let onClose: @Sendable (_ action: @escaping @Sendable () -> Void) -> Void

    public init(write: @escaping @Sendable (Data) async -> Bool, isDraining: @escaping @Sendable () -> Bool,
                isOpen: @escaping @Sendable () -> Bool = { true }, onClose: @escaping @Sendable (_ action: @escaping @Sendable () -> Void) -> Void = { _ in }) {
        self.write = write
        self.isDraining = isDraining
        self.isOpen = isOpen
        self.onClose = onClose
    }
}
