import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A streaming GET over URLSession's delegate (Foundation on Linux has no `bytes(for:)`): the body's chunks as
/// they arrive, the status, and the body of an error answer.
final class EventSource: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let request: URLRequest
    private var continuation: AsyncThrowingStream<Data, any Error>.Continuation?
    private let lock = NSLock()
    private(set) var status: Int?
    private(set) var errorBody = Data()
    /// Called once the stream answered 200.
    var onConnected: (@Sendable () -> Void)?

    init(request: URLRequest) { self.request = request }

    func chunks() -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            self.continuation = continuation
            let config = URLSessionConfiguration.ephemeral
            config.timeoutIntervalForRequest = request.timeoutInterval
            config.timeoutIntervalForResource = 7 * 24 * 3600
            let session = URLSession(configuration: config, delegate: self, delegateQueue: nil)
            let task = session.dataTask(with: request)
            // Called from a cancelled listener's cancellation handler, under Swift's lock on that task, while the
            // session's queue may be yielding a chunk to it (which needs the lock): cancelling from here, which
            // waits on the session's queue, could leave both waiting (see `DataTaskRunner`).
            continuation.onTermination = { _ in
                DispatchQueue.global().async {
                    task.cancel()
                    session.invalidateAndCancel()
                }
            }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.lock()
        status = (response as? HTTPURLResponse)?.statusCode
        let connected = status == 200
        lock.unlock()
        completionHandler(.allow)
        if connected { onConnected?() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        let ok = status == 200
        if !ok, errorBody.count < 65536 { errorBody.append(data) }
        lock.unlock()
        if ok { continuation?.yield(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error, status == nil || status == 200 {
            continuation?.finish(throwing: CKError.make(.networkFailure,
                                                        "the notification stream ended: \(error.localizedDescription)"))
        } else {
            continuation?.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
