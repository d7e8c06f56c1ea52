import Foundation
import Testing
@testable import StratusHTTP
@testable import StratusServer
import StratusTestSupport

/// The server's URL space is in groups (RouteTable), and each group answers its errors its own way — whether a
/// route threw, no route took the path, or the HTTP layer refused the request before any route ran.
@Suite struct RouteGroupTests {
    @Test func everyRouteIsInAGroupAndEachGroupAnswersErrorsInItsFormat() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-groups-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        var config = ServerConfig(port: 0, dataDirectory: data, demo: true)
        config.adminToken = "admin-secret-for-the-test"
        let app = try await StratusApplication.open(config: config)
        try await app.start()
        defer { Task { await app.stop() } }

        let router = app.server.router
        let loose = router.routes.filter { $0.group == nil }.map { "\($0.method.rawValue) /\($0.pattern.joined(separator: "/"))" }
        #expect(loose.isEmpty, "routes in no group: \(loose)")
        // A body larger than the admission threshold is read only after a check of who sends it: every route that
        // takes one has an admission (its own or its group's), so none reads a stranger's megabytes to refuse them.
        let unchecked = router.routes.filter { $0.bodyLimit > config.http.admissionThreshold && $0.admit == nil }
            .map { "\($0.method.rawValue) \($0.path) (\($0.bodyLimit) bytes)" }
        #expect(unchecked.isEmpty, "large bodies read unchecked: \(unchecked)")
        #expect(Set(router.groups.map(\.name)) == ["cloudkit", "handout", "share", "console", "admin", "metrics", "site"])

        let c = DemoData.container.rawValue
        /// (group, request head, expected status, content type prefix, a piece of the body)
        let table: [(String, String, Int, String, String)] = [
            ("cloudkit: a route throws", "POST /database/1/\(c)/development/public/records/nope HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 404, "application/json", #""serverErrorCode":"NOT_FOUND""#),
            ("cloudkit: the HTTP layer refuses", "POST /auth/1/\(c)/development/signout HTTP/1.1\r\nContent-Length: 900000\r\n\r\n", 413, "application/json", #""serverErrorCode":"LIMIT_EXCEEDED""#),
            ("cloudkit: no route", "GET /device/1/\(c) HTTP/1.1\r\n\r\n", 404, "application/json", #""serverErrorCode":"NOT_FOUND""#),
            ("handout: no route", "GET /-/assets/nothing HTTP/1.1\r\n\r\n", 404, "application/json", #""serverErrorCode":"NOT_FOUND""#),
            ("share: the HTTP layer refuses", "POST /share/abc HTTP/1.1\r\nContent-Length: 900000\r\n\r\n", 413, "text/html", "Not done"),
            ("console: the HTTP layer refuses", "POST /console/login HTTP/1.1\r\nContent-Length: 900000\r\n\r\n", 413, "text/html", "Not done"),
            ("admin: a route throws", "DELETE /-/admin/faults/abc HTTP/1.1\r\nAuthorization: Bearer admin-secret-for-the-test\r\n\r\n", 400, "application/json", #""reason":"a fault id is a number""#),
            ("admin: no route", "GET /-/admin/nothing HTTP/1.1\r\n\r\n", 404, "application/json", #""reason""#),
            ("admin: middleware refuses", "GET /-/admin/faults HTTP/1.1\r\n\r\n", 401, "application/json", "Bearer"),
            ("metrics: another method", "POST /-/metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405, "text/plain", "not allowed"),
            ("site: no route", "GET /nothing/here HTTP/1.1\r\n\r\n", 404, "text/plain", "nothing at /nothing/here"),
        ]
        for (name, head, status, type, piece) in table {
            let client = try RawClient(port: app.port, receiveTimeout: 120)   // the suite's start can hold an answer 30 s
            client.send(head.replacingOccurrences(of: " HTTP/1.1\r\n", with: " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n", options: [], range: head.range(of: " HTTP/1.1\r\n")))
            let r = await client.response()
            let body = r.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
            #expect(r?.status == status, "\(name): \(r?.status ?? 0) \(body.prefix(200))")
            #expect(r?.headers["content-type"]?.hasPrefix(type) == true, "\(name): \(r?.headers["content-type"] ?? "none")")
            #expect(body.contains(piece), "\(name): \(body.prefix(300))")
        }
    }
}
