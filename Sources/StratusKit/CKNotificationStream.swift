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
    public typealias Element = CKNotification
    let services: WebServices

    /// Mirrors `CKNotificationStream.makeAsyncIterator`.
    public func makeAsyncIterator() -> AsyncThrowingStream<CKNotification, any Error>.Iterator {
        let services = self.services
        let stream = AsyncThrowingStream<CKNotification, any Error> { continuation in
            let task = Task {
                await NotificationListener(services: services, continuation: continuation).run()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return stream.makeAsyncIterator()
    }
}

/// Holds one listening connection after another until cancelled.
struct NotificationListener {
    let services: WebServices
    let continuation: AsyncThrowingStream<CKNotification, any Error>.Continuation

    func run() async {
        var lastEventID: String?
        var delay = 0.5
        var useCourier = false
        while !Task.isCancelled {
            do {
                if useCourier {
                    try await courier()
                } else {
                    try await sse(&lastEventID)
                }
                delay = 0.5
            } catch let e as CKError where e.code == .unknownItem && !useCourier {
                useCourier = true
                continue
            } catch let e as CKError where e.code == .notAuthenticated || e.code == .badContainer || e.code == .permissionFailure {
                continuation.finish(throwing: e)
                return
            } catch {
                if Task.isCancelled { break }
            }
            try? await Task.sleep(for: .seconds(delay))
            delay = min(delay * 2, 30)
        }
        continuation.finish()
    }

    /// One SSE connection: events until it ends.
    func sse(_ lastEventID: inout String?) async throws {
        let c = services.configuration
        var req = URLRequest(url: try services.url(path: "/database/1/\(services.containerIdentifier)/\(c.environment.rawValue)/notifications/stream"))
        req.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let id = lastEventID { req.setValue(id, forHTTPHeaderField: "Last-Event-ID") }
        // Keep-alives come every 15 s; a connection quiet for much longer is dead.
        req.timeoutInterval = max(c.timeoutIntervalForRequest, 60)
        let events = EventSource(request: req)
        var parser = EventParser()
        for try await chunk in events.chunks() {
            for event in parser.feed(chunk) {
                if let id = event.id { lastEventID = id }
                guard event.name == "notification" || event.name == nil,
                      let json = (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: Any],
                      let n = CKNotification.make(fromRemoteNotificationDictionary: json) else { continue }
                continuation.yield(n)
            }
        }
        if let status = events.status, status != 200 {
            throw try services.readError(events.errorBody, status: status)
        }
    }

    /// The web courier: a token, then long polls that each answer one notification or nothing.
    func courier() async throws {
        let c = services.configuration
        let j = try await services.send(path: "/device/1/\(services.containerIdentifier)/\(c.environment.rawValue)/tokens/create",
                                        body: ["apnsEnvironment": c.environment.rawValue, "clientId": UUID().uuidString])
        guard let s = j["webcourierURL"] as? String, let url = URL(string: s) else { throw CKError.make(.serverResponseLost, "tokens/create gave no webcourierURL") }
        while !Task.isCancelled {
            var req = URLRequest(url: url)
            req.timeoutInterval = 120
            let (data, http) = try await services.perform(req)
            guard http.statusCode == 200 else { throw try services.readError(data, status: http.statusCode) }
            if data.isEmpty { continue }
            if let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let n = CKNotification.make(fromRemoteNotificationDictionary: json) {
                continuation.yield(n)
            }
        }
    }
}

/// Reads `id:`, `event:` and `data:` lines into events (the server-sent events format).
struct EventParser {
    struct Event {
        var id: String?
        var name: String?
        var data: String
    }

    private var buffer = Data()
    private var current = Event(id: nil, name: nil, data: "")
    private var hasData = false

    mutating func feed(_ chunk: Data) -> [Event] {
        buffer.append(chunk)
        var out: [Event] = []
        while let nl = buffer.firstIndex(of: 0x0A) {
            var line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex...nl)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty {
                if hasData { out.append(current) }
                current = Event(id: nil, name: nil, data: "")
                hasData = false
                continue
            }
            if line.hasPrefix(":") { continue }
            let (field, value) = line.firstIndex(of: ":").map { i -> (String, String) in
                var v = String(line[line.index(after: i)...])
                if v.hasPrefix(" ") { v.removeFirst() }
                return (String(line[..<i]), v)
            } ?? (line, "")
            switch field {
            case "id": current.id = value
            case "event": current.name = value
            case "data":
                current.data += hasData ? "\n" + value : value
                hasData = true
            default: break
            }
        }
        return out
    }
}

/// A streaming GET over URLSession's delegate (Foundation on Linux has no `bytes(for:)`): the body's chunks as
/// they arrive, the status, and the body of an error answer.
final class EventSource: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let request: URLRequest
    private var continuation: AsyncThrowingStream<Data, any Error>.Continuation?
    private let lock = NSLock()
    private(set) var status: Int?
    private(set) var errorBody = Data()

    init(request: URLRequest) { self.request = request }

    func chunks() -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            self.continuation = continuation
            let config = URLSessionConfiguration.ephemeral
            config.timeoutIntervalForRequest = request.timeoutInterval
            config.timeoutIntervalForResource = 7 * 24 * 3600
            let session = URLSession(configuration: config, delegate: self, delegateQueue: nil)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.lock()
        status = (response as? HTTPURLResponse)?.statusCode
        lock.unlock()
        completionHandler(.allow)
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
            continuation?.finish(throwing: CKError.make(.networkFailure, "the notification stream ended: \(error.localizedDescription)"))
        } else {
            continuation?.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
