import Foundation

/// Where a streamed response body goes: `write` answers false once the client has gone, and `isDraining` turns
/// true when the server is stopping, so a long stream ends and lets the stop complete.
public struct ResponseStream: Sendable {
    public let write: @Sendable (Data) async -> Bool
    public let isDraining: @Sendable () -> Bool

    public init(write: @escaping @Sendable (Data) async -> Bool, isDraining: @escaping @Sendable () -> Bool) {
        self.write = write
        self.isDraining = isDraining
    }
}
