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
        do { _ = try requestLine(buffer[0..<end]) } catch { return error }
        return nil
    }

    /// The method, target and version of a request line.
    private static func requestLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (method: ArraySlice<UInt8>,
            target: ArraySlice<UInt8>, version: String) {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte), !parts[1].isEmpty,
              parts[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw HTTPError(.badRequest, "malformed request line")
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw HTTPError(version.hasPrefix("HTTP/") ? .httpVersionNotSupported : .badRequest,
                            "unsupported protocol version")
        }
        return (parts[0], parts[1], version)
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }

    package static func parse(_ head: ArraySlice<UInt8>, remoteAddress: String) throws(HTTPError) -> HTTPRequest {
        var lines: [ArraySlice<UInt8>] = []
        var start = head.startIndex
        var i = head.startIndex
        while i + 1 < head.endIndex {
            if head[i] == 13 && head[i + 1] == 10 {
                lines.append(head[start..<i])
                i += 2
                start = i
            } else {
                guard head[i] != 0 && head[i] != 10 else { throw HTTPError(.badRequest,
                        "bare LF or NUL in the request head") }
                i += 1
            }
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { throw HTTPError(.badRequest, "empty request") }
        let (method, target, version) = try Self.requestLine(requestLine)
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let first = line.first, first != 32 && first != 9 else { throw HTTPError(.badRequest,
                    "folded header lines are not accepted") }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(isTokenByte) else {
                throw HTTPError(.badRequest, "malformed header field")
            }
            var value = line[(colon + 1)...]
            while let f = value.first, f == 32 || f == 9 { value = value.dropFirst() }
            while let l = value.last, l == 32 || l == 9 { value = value.dropLast() }
            guard value.allSatisfy({ $0 >= 32 || $0 == 9 }), !value.contains(127) else { throw HTTPError(.badRequest,
                    "control characters in a header value") }
            headers.add(lowercased: Self.lowercasedName(line[line.startIndex..<colon]),
                        String(decoding: value, as: UTF8.self))
        }
        // HTTP/1.1 requires exactly one Host (RFC 9112 § 3.2); two that differ are how requests reach the wrong site.
        let hosts = headers.count(of: "host")
        guard hosts <= 1, hosts == 1 || version == "HTTP/1.0" else {
            throw HTTPError(.badRequest,
                            hosts == 0 ? "an HTTP/1.1 request needs a Host header" : "more than one Host header")
        }
        return try HTTPRequest(method: HTTPMethod(String(decoding: method, as: UTF8.self)),
                               target: String(decoding: target, as: UTF8.self),
                               version: version, headers: headers, remoteAddress: remoteAddress)
    }

    /// A field name (token bytes, ASCII) in lower case, made once from the bytes: `String.lowercased()` made a
    /// second String of every name.
    static func lowercasedName(_ name: ArraySlice<UInt8>) -> String {
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
