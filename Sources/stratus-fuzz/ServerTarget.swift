import Foundation
import Logging
import StratusHTTP
import StratusModel
import StratusServer
import StratusStore
#if canImport(Glibc)
import Glibc
#endif

/// The whole server on a real socket: each input is one request, sent on a fresh connection and half-closed, so that
/// a request that announces more than it sends ends at once instead of at the request timeout. A trap anywhere in the
/// server — the parser, a route's handler, the store — kills this process with the input in the report.
///
/// The corpus holds requests to every kind of route with placeholders the live values replace after mutation:
/// `{{C}}` the demo container, `{{T}}` its Development API token, `{{W}}` a signed-in user's web auth token,
/// `{{S}}` a console session cookie, `{{X}}` that session's CSRF token, `{{A}}` the admin token, `{{LEN}}` the body's
/// length.
enum ServerTarget {
    struct Live: Sendable {
        let app: StratusApplication
        let values: [(String, String)]
        let data: URL
    }

    nonisolated(unsafe) static var live: Live?
    static var router: Router? { live?.app.router }

    static func start() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-fuzz-\(UUID().uuidString)")
        var config = ServerConfig(port: 0, dataDirectory: data, demo: true)
        config.durability = .relaxed
        config.adminToken = "fuzz-admin-token"
        config.http.requestTimeout = .seconds(5)
        config.courierHold = .milliseconds(50)
        var logger = Logger(label: "stratus-fuzz")
        logger.logLevel = .critical
        let app = try await StratusApplication.open(config: config, logger: logger)
        try await app.start()
        let store = app.store
        let values = try await BlockingWork.shared.run { () throws -> [(String, String)] in
            let container = DemoData.container
            let token = try store.credentials.createAPIToken(container: container, environment: .development, name: "fuzz").secret
            let web = try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: DemoData.demoUser)
            let admin = try store.admins.createAdmin(email: "fuzz@example.com", password: "a long fuzzing password")
            let session = try store.admins.createAdminSession(admin)
            return [("{{C}}", container.rawValue), ("{{T}}", token), ("{{W}}", PercentDecoding.encodeSegment(web)),
                    ("{{S}}", session.token), ("{{X}}", session.csrf), ("{{A}}", "fuzz-admin-token")]
        }
        live = Live(app: app, values: values, data: data)
    }

    static func stop() async {
        guard let live else { return }
        await live.app.stop()
        try? FileManager.default.removeItem(at: live.data)
    }

    /// The request as sent: placeholders filled in, `{{LEN}}` the length of what follows the head.
    static func filled(_ input: [UInt8], _ values: [(String, String)]) -> [UInt8] {
        var out = input
        for (name, value) in values {
            while let r = Mutator.find(Array(name.utf8), in: out) { out.replaceSubrange(r, with: Array(value.utf8)) }
        }
        if let len = Mutator.find(Array("{{LEN}}".utf8), in: out) {
            let bodyStart = Mutator.find([13, 10, 13, 10], in: out).map { $0.upperBound } ?? out.count
            out.replaceSubrange(len, with: Array(String(max(0, out.count - bodyStart)).utf8))
        }
        return out
    }

    static let target = FuzzTarget("http", maxLength: 64 * 1024, dictionary: [
        "GET ", "POST ", "PUT ", "DELETE ", "OPTIONS ", "HEAD ", " HTTP/1.1\r\n", "\r\n", "Host: x\r\n", "Content-Length: ",
        "Transfer-Encoding: chunked\r\n", "Content-Type: multipart/form-data; boundary=b\r\n", "Content-Type: application/x-www-form-urlencoded\r\n",
        "Cookie: stratus_session={{S}}\r\n", "Origin: http://evil.example\r\n", "X-Forwarded-For: 10.0.0.1\r\n", "Authorization: Bearer {{A}}\r\n",
        "/database/1/{{C}}/development/public/", "/database/1/{{C}}/development/private/", "/database/1/{{C}}/production/shared/",
        "records/query", "records/modify", "records/lookup", "records/changes", "records/resolve", "records/accept", "zones/modify",
        "zones/lookup", "changes/zone", "changes/database", "subscriptions/modify", "users/discover", "assets/upload",
        "?ckAPIToken={{T}}", "&ckWebAuthToken={{W}}", "/console/{{C}}/development/", "/-/assets/{{C}}/development/", "/-/webcourier/",
        "/-/admin/", "/share/", "/auth/1/{{C}}/development/", "csrf={{X}}", "\"recordType\":\"Note\"", "\"fields\":{", "\"zoneID\":{\"zoneName\":",
        "\"operationType\":\"forceReplace\"", "\"continuationMarker\":", "\"syncToken\":", "\"filterBy\":[", "\"resultsLimit\":",
        "%EF%BC%90", "%2F", "%00", "..", "0\r\n\r\n", "-1\r\n",
    ]) { input in
        guard let live else { return "no server" }
        let request = filled(input, live.values)
        return send(request, port: live.app.port)
    }

    /// Sends one request on a fresh connection and says what came back: the status and the error code, if any.
    static func send(_ request: [UInt8], port: UInt16) -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return "no socket" }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard ok == 0 else { return "no connection" }
        var tv = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        request.withUnsafeBufferPointer { buf in
            while sent < buf.count {
                let n = Glibc.send(fd, buf.baseAddress! + sent, buf.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { break }
                sent += n
            }
        }
        shutdown(fd, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while answer.count < 256 * 1024 {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            answer += chunk[0..<n]
        }
        guard answer.count >= 12 else { return answer.isEmpty ? "closed" : "short answer" }
        let status = String(decoding: answer[9..<12], as: UTF8.self)
        var code = ""
        if let r = Mutator.find(Array("\"serverErrorCode\":\"".utf8), in: answer) {
            code = String(decoding: answer[r.upperBound...].prefix { $0 != UInt8(ascii: "\"") }.prefix(40), as: UTF8.self)
        }
        return "\(status) \(code)"
    }
}
