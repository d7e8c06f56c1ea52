import Foundation

public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: Data
    /// A body written as it is produced (Server-Sent Events): the head goes out without a length, then this runs
    /// until it returns or the client goes away, and the connection closes.
    public var stream: (@Sendable (ResponseStream) async -> Void)? = nil
    /// A large body written to a spool as it was produced (see `AnswerSpool`): sent from there, then given back.
    public var spool: AnswerSpool? = nil
    /// Close the connection without writing anything (an injected network fault: the client sees the connection
    /// drop with its request sent and no answer).
    public var dropsConnection = false
    /// Facts for the server's observers (the request log: the user, a CloudKit error code, the error's uuid); never
    /// sent.
    public var annotations: [String: String] = [:]

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// No answer at all: the connection is closed.
    public static var dropConnection: HTTPResponse { var r = HTTPResponse(status: HTTPStatus(499,
            "Dropped")); r.dropsConnection = true; return r }

    public static func text(_ s: String, status: HTTPStatus = .ok,
                            contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        var h = HTTPHeaders()
        h["content-type"] = contentType
        return HTTPResponse(status: status, headers: h, body: Data(s.utf8))
    }

    public static func json(_ data: Data, status: HTTPStatus = .ok) -> HTTPResponse {
        var h = HTTPHeaders()
        h["content-type"] = "application/json; charset=utf-8"
        return HTTPResponse(status: status, headers: h, body: data)
    }

    public static func redirect(to location: String, status: HTTPStatus = .seeOther) -> HTTPResponse {
        var h = HTTPHeaders()
        h["location"] = location
        return HTTPResponse(status: status, headers: h)
    }

    /// The bytes on the wire: status line, headers (with Content-Length), blank line, body (omitted for HEAD).
    /// A large body comes back apart from the head (`separateBody`), to be written after it without being
    /// copied behind it: a page of records is a few hundred kilobytes.
    /// The head built as bytes (a String appended to piece by piece rechecked its storage on every append).
    func serialized(includeBody: Bool, keepAlive: Bool) -> (head: Data, separateBody: Data?) {
        let noBody = status.code == 204 || status.code == 304 || status.code < 200
        let inline = includeBody && !noBody && !body.isEmpty && body.count <= 16 * 1024
        var head: [UInt8] = []
        head.reserveCapacity(512 + (inline ? body.count : 0))
        head.append(contentsOf: "HTTP/1.1 \(status.code) \(status.reason)\r\n".utf8)
        for (name, value) in headers where name != "content-length" && name != "connection" {
            // A header is never split by what went into it: a name that is not a token is left out, and CR, LF
            // or NUL in a value (a redirect to a path a client named) is percent-encoded.
            guard Self.isToken(name) else { continue }
            head.append(contentsOf: name.utf8)
            head.append(contentsOf: ": ".utf8)
            head.append(contentsOf: Self.lineSafe(value).utf8)
            head.append(contentsOf: "\r\n".utf8)
        }
        if !noBody && stream == nil {
            head.append(contentsOf: "content-length: ".utf8)
            head.append(contentsOf: String(spool?.count ?? body.count).utf8)
            head.append(contentsOf: "\r\n".utf8)
        }
        head.append(contentsOf: (keepAlive ? "connection: keep-alive\r\n\r\n" : "connection: close\r\n\r\n").utf8)
        if inline { head.append(contentsOf: body) }
        let out = Data(head)
        guard includeBody && !noBody && !body.isEmpty else { return (out, nil) }
        return inline ? (out, nil) : (out, body)
    }

    /// Whether `name` is an HTTP token (RFC 9110): visible ASCII but the separators.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 < 128 && tokenBytes[Int($0)] }
    }

    private static let tokenBytes: [Bool] = (0..<128).map { c in
        c > 32 && c < 127 && !Array("()<>@,;:\\\"/[]?={}".utf8).contains(UInt8(c))
    }

    /// `value` with CR, LF and NUL percent-encoded (the value itself, with no copy, when it has none).
    static func lineSafe(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else { return value }
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case "\u{0}": out += "%00"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
