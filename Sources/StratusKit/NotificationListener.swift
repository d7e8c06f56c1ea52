import Foundation
import StratusJSON
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Holds one listening connection after another until cancelled.
struct NotificationListener {
    let services: WebServices
    let continuation: AsyncThrowingStream<CKNotification, any Error>.Continuation
    var onConnect: (@Sendable () -> Void)?

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
        events.onConnected = onConnect
        var parser = EventParser()
        for try await chunk in events.chunks() {
            for event in parser.feed(chunk) {
                if let id = event.id { lastEventID = id }
                guard event.name == "notification" || event.name == nil,
                      let json = JSON(parsing: Data(event.data.utf8))?.object,
                      let n = CKNotification.make(payload: json) else { continue }
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
                                        body: ["apnsEnvironment": JSON(c.environment.rawValue),
                                               "clientId": JSON(UUID().uuidString)])
        guard let s = j["webcourierURL"]?.string, let url = URL(string: s) else { throw CKError.make(.serverResponseLost, "tokens/create gave no webcourierURL") }
        while !Task.isCancelled {
            var req = URLRequest(url: url)
            req.timeoutInterval = 120
            let (data, http) = try await services.perform(req)
            guard http.statusCode == 200 else { throw try services.readError(data, status: http.statusCode) }
            if data.isEmpty { continue }
            if let json = JSON(parsing: data)?.object, let n = CKNotification.make(payload: json) {
                continuation.yield(n)
            }
        }
    }
}
