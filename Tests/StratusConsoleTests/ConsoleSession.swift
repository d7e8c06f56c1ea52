import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusModel
import StratusStore

/// A signed-in admin on a `ConsoleFixture`: GETs and form POSTs with the session cookie and CSRF token.
struct ConsoleSession {
    let f: ConsoleFixture
    let cookie: String
    let csrf: String

    static func signIn(_ f: ConsoleFixture, email: String = "admin@example.com") async throws -> ConsoleSession {
        _ = try f.app.store.admins.createAdmin(email: email, password: "a long admin password")
        return try await signInAgain(f, email: email)
    }

    /// A second session of an admin that exists (another browser or device).
    /// `page`: where the form token is read (an administrator waiting for a second step reaches only its page).
    static func signInAgain(_ f: ConsoleFixture, email: String = "admin@example.com",
                            page: String = "/console/") async throws -> ConsoleSession {
        let login = try await f.request("/console/login", form: ["email": email, "password": "a long admin password"])
        guard let cookie = ConsoleFixture.sessionCookie(login) else { throw StratusError.badRequest("no session cookie") }
        let home = try await f.request(page, cookie: cookie)
        guard let csrf = ConsoleFixture.csrf(home.html) else { throw StratusError.badRequest("no csrf token") }
        return ConsoleSession(f: f, cookie: cookie, csrf: csrf)
    }

    func get(_ path: String, accept: String? = nil) async throws -> ConsoleFixture.Page {
        try await send(path, body: nil, accept: accept)
    }

    /// A form POST with repeated names allowed; the CSRF token is added.
    func post(_ path: String, _ items: [(String, String)] = [], csrf: Bool = true, accept: String? = nil) async throws -> ConsoleFixture.Page {
        let all = (csrf ? [("csrf", self.csrf)] : []) + items
        let body = all.map { "\(ConsoleSession.encode($0.0))=\(ConsoleSession.encode($0.1))" }.joined(separator: "&")
        return try await send(path, body: Data(body.utf8), accept: accept)
    }

    /// A multipart form POST, as a browser sends a form with a file input; the CSRF token is added.
    func upload(_ path: String, _ items: [(String, String)], file: (name: String, filename: String, data: Data), csrf: Bool = true) async throws -> ConsoleFixture.Page {
        let boundary = "----stratus-test-\(UUID().uuidString)"
        var body = Data()
        for (k, v) in (csrf ? [("csrf", self.csrf)] : []) + items {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(k)\"\r\n\r\n\(v)\r\n".utf8))
        }
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8))
        body.append(file.data)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return try await send(path, body: body, accept: nil, contentType: "multipart/form-data; boundary=\(boundary)")
    }

    static func encode(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }

    private func send(_ path: String, body: Data?, accept: String?, contentType: String = "application/x-www-form-urlencoded") async throws -> ConsoleFixture.Page {
        var req = URLRequest(url: URL(string: f.app.url + path.dropFirst())!)
        req.setValue(cookie, forHTTPHeaderField: "Cookie")
        if let accept { req.setValue(accept, forHTTPHeaderField: "Accept") }
        if let body {
            req.httpMethod = "POST"
            req.httpBody = body
            req.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        let (d, r) = try await f.session.data(for: req)
        let http = r as! HTTPURLResponse
        var h: [String: String] = [:]
        for (k, v) in http.allHeaderFields { h[String(describing: k).lowercased()] = String(describing: v) }
        return ConsoleFixture.Page(status: http.statusCode, html: String(decoding: d, as: UTF8.self), headers: h)
    }
}
