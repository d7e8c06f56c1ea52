/// Escaping for text placed in HTML: every value from a record, a name or a user goes through here.
public enum HTML {
    /// Escapes straight onto the end of `out`, without an intermediate string when nothing needs escaping.
    public static func appendEscaped(_ s: String, to out: inout String) {
        if isClean(s) { out += s } else { out += escape(s) }
    }

    /// Escapes onto the end of a page's bytes: clean runs are copied as they are (a page is built as bytes: a
    /// String appended to piece by piece rechecked its storage and its ASCII-ness on every append).
    public static func appendEscaped(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            var run = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                let replacement: StaticString
                switch b {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\""): replacement = "&quot;"
                case UInt8(ascii: "'"): replacement = "&#39;"
                case 0..<0x20 where b != UInt8(ascii: "\n") && b != UInt8(ascii: "\t"): replacement = ""
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                if replacement.utf8CodeUnitCount > 0 {
                    out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start,
                                                               count: replacement.utf8CodeUnitCount))
                } else {
                    out.append(contentsOf: "&#\(b);".utf8)
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
    }

    /// Whether text needs no escaping (most does not): its bytes checked before any string is built.
    static func isClean(_ s: String) -> Bool {
        for b in s.utf8 where b < 0x20 || b == UInt8(ascii: "&") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">")
            || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
            if b == UInt8(ascii: "\n") || b == UInt8(ascii: "\t") { continue }
            return false
        }
        return true
    }

    public static func escape(_ s: String) -> String {
        // Most text needs nothing: hand the string back untouched.
        if isClean(s) { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                if ch.value < 0x20 && ch != "\n" && ch != "\t" { out += "&#\(ch.value);" } else { out.unicodeScalars.append(ch) }
            }
        }
        return out
    }

    /// Headers every HTML page carries: no inline script, no framing, no sniffing, no referrer to other sites.
    /// (Not `no-referrer`: with it, browsers send `Origin: null` on same-site form posts, which the CSRF check
    /// refuses.)
    public static func securityHeaders(_ h: inout HTTPHeaders) {
        h["content-security-policy"] = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self' http: https:"
        h["x-frame-options"] = "DENY"
        h["x-content-type-options"] = "nosniff"
        h["referrer-policy"] = "same-origin"
    }

    public static func page(_ body: String, status: HTTPStatus = .ok) -> HTTPResponse {
        page(bytes: Data(body.utf8), status: status)
    }

    public static func page(bytes body: Data, status: HTTPStatus = .ok) -> HTTPResponse {
        var h = HTTPHeaders()
        h["content-type"] = "text/html; charset=utf-8"
        h["cache-control"] = "no-store"
        securityHeaders(&h)
        return HTTPResponse(status: status, headers: h, body: body)
    }
}

import Foundation
