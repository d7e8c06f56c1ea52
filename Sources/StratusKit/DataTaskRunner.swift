import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request's data task for async code, in place of `URLSession.data(for:)`. On Linux that method cancels its
/// task from the cancellation handler, synchronously on the session's queue, while Swift holds the cancelled
/// task's status lock; if the session's queue is at that moment finishing the same request, it waits for that lock
/// to resume the caller, and both wait for good. It hung a `CKSyncEngine` released while its fetch was finishing
/// (the test process stopped, its threads asleep on the two locks). Here cancellation only records the wish and
/// cancels the task from another queue, holding nothing.
final class DataTaskRunner: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    static func data(for request: URLRequest, in session: URLSession) async throws -> (Data, URLResponse) {
        let runner = DataTaskRunner()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error { c.resume(throwing: error) }
                    else if let response { c.resume(returning: (data ?? Data(), response)) }
                    else { c.resume(throwing: URLError(.badServerResponse)) }
                }
                runner.start(task)
            }
        } onCancel: {
            runner.cancel()
        }
    }

    private func start(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let cancelled = self.cancelled
        lock.unlock()
        task.resume()
        if cancelled { Self.cancelLater(task) }
    }

    private func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        if let task { Self.cancelLater(task) }
    }

    private static func cancelLater(_ task: URLSessionDataTask) {
        DispatchQueue.global().async { task.cancel() }
    }
}
