import Synchronization

/// A loop apart from every request (the webhook and APNs deliverers): started once with the server, stopped by
/// cancelling it and waiting until it has ended, so a stop never leaves it running against a closed store.
final class BackgroundLoop: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    func start(_ body: @escaping @Sendable () async -> Void) {
        task.withLock { $0 = Task.detached { await body() } }
    }

    func stop() async {
        let t = task.withLock { t -> Task<Void, Never>? in defer { t = nil }; return t }
        t?.cancel()
        await t?.value
    }
}
