import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CKContainer {
    /// The signed-in user's notifications as they arrive, as `CKNotification`s. There is no APNs here: StratusKit
    /// listens on Stratus's notification stream (server-sent events), reconnects after a dropped connection with
    /// `Last-Event-ID` so nothing is missed, and falls back to CloudKit JS's web courier when the stream is not
    /// served (a proxy that does not pass it). Not in CloudKit, whose notifications arrive through APNs.
    public var notifications: CKNotificationStream { CKNotificationStream(services: services) }
}

/// An `AsyncSequence` of notifications for `CKContainer.notifications`. It ends with a `CKError` when the
/// credentials stop working (`.notAuthenticated`), and when the task iterating it is cancelled.
public struct CKNotificationStream: AsyncSequence, Sendable {
    /// Its elements: notifications.
    public typealias Element = CKNotification
    let services: WebServices
    /// Called each time the stream is (re)connected, so a caller can catch up on what happened while it was not
    /// (the stream starts at "now"). StratusKit's sync engine fetches then.
    var onConnect: (@Sendable () -> Void)? = nil

    /// Mirrors `CKNotificationStream.makeAsyncIterator`.
    public func makeAsyncIterator() -> AsyncThrowingStream<CKNotification, any Error>.Iterator {
        let services = self.services, onConnect = self.onConnect
        let stream = AsyncThrowingStream<CKNotification, any Error> { continuation in
            let task = Task {
                await NotificationListener(services: services, continuation: continuation, onConnect: onConnect).run()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return stream.makeAsyncIterator()
    }
}
