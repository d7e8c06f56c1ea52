import CHTTP2
import Foundation
import StratusModel
import Synchronization

/// Sends pushes to APNs over HTTP/2 (libcurl with nghttp2, through CHTTP2): a few connections kept open, each
/// used by one push at a time, each push a blocking call on a thread of its own so no Swift thread waits on it.
public final class APNsClient: Sendable {
    /// Apple's hosts; `endpoint` replaces both (a local stand-in for tests).
    public static let production = "https://api.push.apple.com"
    public static let development = "https://api.sandbox.push.apple.com"

    let endpoint, caFile: String?
    let timeoutMilliseconds: Int
    private let idle: Mutex<[Connection]> = Mutex([])
    private let maximumConnections: Int
    private let open = Atomic<Int>(0)

    /// - Parameters:
    ///   - endpoint: where to send instead of Apple's hosts (`https://127.0.0.1:PORT`), or nil.
    ///   - caFile: roots to trust instead of the system's (the stand-in's certificate), or nil.
    public init(endpoint: String? = nil, caFile: String? = nil, timeout: Duration = .seconds(10),
                maximumConnections: Int = 4) {
        self.endpoint = endpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.caFile = caFile
        timeoutMilliseconds = Int(timeout.components.seconds) * 1000 + Int(timeout.components.attoseconds / 1_000_000_000_000_000)
        self.maximumConnections = maximumConnections
    }

    deinit {
        for c in idle.withLock({ $0 }) { stratus_http2_free(c.handle) }
    }

    /// The host a device of this APNs environment is pushed through.
    public func host(production: Bool) -> String { endpoint ?? (production ? Self.production : Self.development) }

    /// Sends one push; never throws: a failure to connect is a result with status 0.
    public func send(_ push: APNsPush, production: Bool, providerToken: String) async -> APNsResult {
        let url = "\(host(production: production))/3/device/\(push.deviceToken)"
        let headers = push.headerLines(providerToken: providerToken)
        return await withCheckedContinuation { (c: CheckedContinuation<APNsResult, Never>) in
            Thread { c.resume(returning: self.post(url, headers: headers, body: push.payload)) }.start()
        }
    }

    private func post(_ url: String, headers: [String], body: Data) -> APNsResult {
        if let missing = stratus_http2_load_failure() { return APNsResult(status: 0, reason: String(cString: missing),
                apnsID: nil, http2: false) }
        guard let connection = checkOut() else { return APNsResult(status: 0, reason: "out of memory", apnsID: nil,
                                                                   http2: false) }
        defer { checkIn(connection) }
        var result = stratus_http2_result()
        let cHeaders = headers.map { strdup($0) }
        defer { cHeaders.forEach { free($0) } }
        let rc = cHeaders.map { UnsafePointer($0) }.withUnsafeBufferPointer { hs in
            body.withUnsafeBytes { b in
                stratus_http2_post(connection.handle, url, hs.baseAddress, Int32(hs.count), b.baseAddress, b.count,
                                   caFile, timeoutMilliseconds, &result)
            }
        }
        defer { stratus_http2_result_free(&result) }
        let apnsID = withUnsafeBytes(of: result.apns_id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard rc == 0 else {
            let error = withUnsafeBytes(of: result.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return APNsResult(status: 0, reason: error.isEmpty ? "no answer" : error, apnsID: nil, http2: false)
        }
        var reason: String?
        if let body = result.body, result.body_length > 0 {
            let data = Data(bytes: body, count: result.body_length)
            reason = (try? JSON.parse(data))?["reason"]?.string
        }
        return APNsResult(status: result.status, reason: reason, apnsID: apnsID.isEmpty ? nil : apnsID,
                          http2: result.http2 != 0)
    }

    private struct Connection: @unchecked Sendable {
        let handle: OpaquePointer
    }

    /// An idle connection, or a new one; waits while all are in use.
    private func checkOut() -> Connection? {
        while true {
            if let c = idle.withLock({ $0.popLast() }) { return c }
            let n = open.add(1, ordering: .relaxed).newValue
            if n <= maximumConnections {
                guard let h = stratus_http2_new() else { open.subtract(1, ordering: .relaxed); return nil }
                return Connection(handle: h)
            }
            open.subtract(1, ordering: .relaxed)
            usleep(2_000)
        }
    }

    private func checkIn(_ c: Connection) { idle.withLock { $0.append(c) } }
}
