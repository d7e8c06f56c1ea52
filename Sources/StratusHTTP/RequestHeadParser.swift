/// Parses a request head (request line and header fields) in one linear pass, with no regexes and no
/// re-scanning, so a hostile 256 KiB header line costs microseconds, not seconds.
package enum RequestHeadParser {
    /// The offset just past the blank line ending the head, scanning from `from` (the caller remembers how far it
    /// got). A line ended by a bare LF is refused at once: such a head would otherwise wait for a CRLF CRLF that
    /// never comes, and time out.
    package static func headEnd(in buffer: [UInt8], from: Int) throws(HTTPError) -> Int? {
        var i = max(0, from - 3)
        while i < buffer.count {
            if buffer[i] == 10 {
                guard i > 0, buffer[i - 1] == 13 else { throw HTTPError(.badRequest,
                        "a line of the request head ends in a bare LF, not CRLF") }
                if i >= 3, buffer[i - 2] == 10, buffer[i - 3] == 13 { return i + 1 }
            }
            i += 1
        }
        return nil
    }

    /// The request target of a head's first line, if it has one: errors answered before the head is parsed
    /// still take the shape of the part of the URL space they were sent to.
    static func target(in buffer: [UInt8]) -> String? {
        guard let sp = buffer.prefix(64).firstIndex(of: 32) else { return nil }
        let rest = buffer[(sp + 1)...].prefix(2048)
        let end = rest.firstIndex(where: { $0 == 32 || $0 == 13 || $0 == 10 }) ?? rest.endIndex
        return String(decoding: rest[..<end], as: UTF8.self)
    }

    /// Why the request line at the start of `buffer` can never begin a valid head, once that line is complete (nil
    /// while it is not, or when it is fine): a client that sends `GET /` and a CRLF, as HTTP/0.9 did, waits for an
    /// answer, not for the request timeout.
    package static func requestLineError(in buffer: [UInt8]) -> HTTPError? {
        guard let end = ChunkedDecoder.crlf(in: buffer) else { return nil }
        return buffer.withUnsafeBufferPointer { bytes in
            if case .failure(let error) = requestLine(UnsafeBufferPointer(rebasing: bytes[0..<end])) { return error }
            return nil
        }
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }

    package static func parse(_ head: ArraySlice<UInt8>, remoteAddress: String) throws(HTTPError) -> HTTPRequest {
        // On the head's bytes, line by line as they end: an array of lines and a slice per line were most of what
        // parsing a small request cost.
        let parsed = head.withUnsafeBufferPointer { bytes -> Result<(method: String, target: String, version: String,
                                                                    headers: HTTPHeaders), HTTPError> in
            var i = 0, lines = 0
            while i + 1 < bytes.count {
                if bytes[i] == 13 && bytes[i + 1] == 10 { i += 2; lines += 1; continue }
                guard bytes[i] != 0 && bytes[i] != 10 else { return .failure(HTTPError(.badRequest,
                        "bare LF or NUL in the request head")) }
                i += 1
            }
            var requestLine: (method: String, target: String, version: String)?
            var headers = HTTPHeaders(capacity: lines)
            var pendingEmpty = 0
            var start = 0
            i = 0
            while i + 1 < bytes.count {
                guard bytes[i] == 13 && bytes[i + 1] == 10 else { i += 1; continue }
                let line = UnsafeBufferPointer(rebasing: bytes[start..<i])
                i += 2
                start = i
                // Empty lines count only once something follows them (the head ends in one).
                if line.isEmpty { pendingEmpty += 1; continue }
                if requestLine == nil && pendingEmpty > 0 {
                    return .failure(HTTPError(.badRequest, "malformed request line"))
                }
                if pendingEmpty > 0 { return .failure(HTTPError(.badRequest, "folded header lines are not accepted")) }
                if requestLine == nil {
                    switch Self.requestLine(line) {
                    case .success(let parts): requestLine = parts
                    case .failure(let error): return .failure(error)
                    }
                    continue
                }
                if let error = Self.addField(line, to: &headers) { return .failure(error) }
            }
            guard let requestLine else {
                return .failure(HTTPError(.badRequest, "empty request"))
            }
            return .success((requestLine.method, requestLine.target, requestLine.version, headers))
        }
        let (method, target, version, headers) = try parsed.get()
        // HTTP/1.1 requires exactly one Host (RFC 9112 § 3.2); two that differ are how requests reach the wrong site.
        let hosts = headers.count(of: "host")
        guard hosts <= 1, hosts == 1 || version == "HTTP/1.0" else {
            throw HTTPError(.badRequest,
                            hosts == 0 ? "an HTTP/1.1 request needs a Host header" : "more than one Host header")
        }
        return try HTTPRequest(method: HTTPMethod(method), target: target, version: version, headers: headers,
                               remoteAddress: remoteAddress)
    }

    /// The method, target and version of a request line, on its bytes.
    private static func requestLine(_ line: UnsafeBufferPointer<UInt8>) -> Result<(method: String, target: String,
            version: String), HTTPError> {
        guard let sp1 = line.firstIndex(of: 32), let sp2 = line[(sp1 + 1)...].firstIndex(of: 32),
              !line[(sp2 + 1)...].contains(32), sp1 > 0, line[..<sp1].allSatisfy(isTokenByte), sp2 > sp1 + 1,
              line[(sp1 + 1)..<sp2].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            return .failure(HTTPError(.badRequest, "malformed request line"))
        }
        let version = String(decoding: UnsafeBufferPointer(rebasing: line[(sp2 + 1)...]), as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .failure(HTTPError(version.hasPrefix("HTTP/") ? .httpVersionNotSupported : .badRequest,
                                      "unsupported protocol version"))
        }
        return .success((String(decoding: UnsafeBufferPointer(rebasing: line[..<sp1]), as: UTF8.self),
                         String(decoding: UnsafeBufferPointer(rebasing: line[(sp1 + 1)..<sp2]), as: UTF8.self), version))
    }

    /// Adds one header line's field; the error when the line is not one.
    private static func addField(_ line: UnsafeBufferPointer<UInt8>, to headers: inout HTTPHeaders) -> HTTPError? {
        guard let first = line.first, first != 32 && first != 9 else {
            return HTTPError(.badRequest, "folded header lines are not accepted")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0, line[..<colon].allSatisfy(isTokenByte) else {
            return HTTPError(.badRequest, "malformed header field")
        }
        var from = colon + 1, to = line.count
        while from < to, line[from] == 32 || line[from] == 9 { from += 1 }
        while to > from, line[to - 1] == 32 || line[to - 1] == 9 { to -= 1 }
        let value = UnsafeBufferPointer(rebasing: line[from..<to])
        guard value.allSatisfy({ ($0 >= 32 && $0 != 127) || $0 == 9 }) else {
            return HTTPError(.badRequest, "control characters in a header value")
        }
        headers.add(lowercased: Self.lowercasedName(UnsafeBufferPointer(rebasing: line[..<colon])),
                    String(decoding: value, as: UTF8.self))
        return nil
    }

    /// A field name (token bytes, ASCII) in lower case, made once from the bytes: `String.lowercased()` made a
    /// second String of every name.
    static func lowercasedName(_ name: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: name.count) { out in
            for (i, b) in name.enumerated() { out[i] = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b }
            return name.count
        }
    }

    /// How the body is framed: nothing, a length, or chunks. Conflicting or malformed framing is refused,
    /// since a server and a proxy reading it differently is how requests get smuggled.
    package enum Framing: Equatable { case none, length(Int), chunked }

    package static func framing(_ headers: HTTPHeaders) throws(HTTPError) -> Framing {
        let te = headers.values("transfer-encoding"), cl = headers.values("content-length")
        if !te.isEmpty {
            guard cl.isEmpty else { throw HTTPError(.badRequest, "both Transfer-Encoding and Content-Length") }
            guard te.count == 1, te[0].lowercased() == "chunked" else { throw HTTPError(.notImplemented,
                    "only chunked transfer coding is supported") }
            return .chunked
        }
        guard !cl.isEmpty else { return .none }
        // The usual case, one plain number, without sets and trimming.
        if cl.count == 1, let only = cl.first, !only.isEmpty, only.utf8.count <= 15,
           only.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let n = Int(only) {
            return n == 0 ? .none : .length(n)
        }
        let distinct = Set(cl.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
        guard distinct.count == 1, let v = distinct.first, !v.isEmpty, v.count <= 15, v.allSatisfy(\.isASCII), v.allSatisfy(\.isNumber),
              let n = Int(v) else {
            throw HTTPError(.badRequest, "malformed Content-Length")
        }
        return n == 0 ? .none : .length(n)
    }
}

import Foundation
