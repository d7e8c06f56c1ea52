import Foundation

public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request target as sent (path and query, still percent-encoded).
    public var target: String
    /// The path part of the target, still percent-encoded.
    public var rawPath: String
    /// Path segments, each percent-decoded on its own (so an encoded "/" stays inside its segment).
    public var pathSegments: [String]
    public var rawQuery: String?
    public var version: String
    public var headers: HTTPHeaders
    public var body: Data
    public var remoteAddress: String
    /// The client's address without its port: the peer's, or the one a trusted proxy forwarded
    /// (`X-Forwarded-For`). Throttling and logs key on it.
    public var clientAddress: String
    /// `https` when the client reached the server over TLS (a trusted proxy said so, or the public URL is https).
    public var scheme: String = "http"
    /// Where absolute URLs for this client start: the public URL, or `scheme://Host`. The one URL base every
    /// face builds links with (asset URLs, sign-in redirects, the web courier, share pages).
    public var baseURL: String = "http://127.0.0.1"
    /// The origin of this server as the client's browser sees it, for same-origin checks.
    public var origin: String { baseURL }
    /// What answers to this request may hold while they wait to be sent (see `AnswerSpool`); the server's.
    public var answers: AnswerBudget = .standalone
    /// Values captured by the route pattern (`{name}` segments and a trailing `*` as "*").
    public var parameters: [String: String] = [:]
    /// The request came from a proxy on this machine that Stratus was not told to trust (`--trust-proxy`): it
    /// carries `X-Forwarded-For` or `Forwarded` from a loopback peer. Such a request is never the loopback
    /// interface's own (metrics), and its client address is the nearest forwarded one, so that everyone behind the
    /// proxy does not share one sign-in throttle. The server warns once that the proxy should be named.
    public var viaUntrustedProxy = false
    /// A server with a public URL and no trusted proxy is behind a proxy that may add no forwarding header at all
    /// (nginx's `proxy_pass` adds none by default): its loopback peer is that proxy, not this machine's own user.
    public var loopbackMayBeProxy = false
    /// Whether the client is this machine itself, reaching the server directly (not through a proxy).
    public var isLoopback: Bool { !viaUntrustedProxy && !loopbackMayBeProxy && ["127.0.0.1",
            "::1"].contains(clientAddress) }

    public init(method: HTTPMethod, target: String, version: String = "HTTP/1.1", headers: HTTPHeaders = HTTPHeaders(),
                body: Data = Data(), remoteAddress: String = "") throws(HTTPError) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        clientAddress = HTTPRequest.host(ofAddress: remoteAddress)
        var t = target
        // On the target's bytes ('?' and '/' are ASCII): each piece is made a String once, from its bytes.
        var (path, query, segments) = try t.withUTF8 { utf8 -> Result<(String?, String?, [String]), HTTPError> in
            let q = utf8.firstIndex(of: UInt8(ascii: "?"))
            let path = UnsafeBufferPointer(rebasing: utf8[..<(q ?? utf8.count)])
            guard path.first == UInt8(ascii: "/") else { return .failure(HTTPError(.badRequest, "the request target must start with /")) }
            var segments: [String] = []
            var start = 1
            while true {
                let end = path[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.count
                guard let d = PercentDecoding.decode(UnsafeBufferPointer(rebasing: path[start..<end])) else {
                    return .failure(HTTPError(.badRequest, "malformed percent-encoding in the path"))
                }
                segments.append(d)
                if end == path.count { break }
                start = end + 1
            }
            guard let q else { return .success((nil, nil, segments)) }
            return .success((String(decoding: path, as: UTF8.self),
                             String(decoding: UnsafeBufferPointer(rebasing: utf8[(q + 1)...]), as: UTF8.self), segments))
        }.get()
        rawPath = path ?? target
        rawQuery = query
        if segments.last == "" && segments.count > 1 { segments.removeLast() }
        pathSegments = segments == [""] ? [] : segments
    }

    /// Fills in the client's address, scheme and URL base from the connection, the public URL and, when the
    /// peer is a trusted proxy, the one header that proxy puts the client's address in (`ForwardedHeader`) and
    /// `X-Forwarded-Proto`.
    public mutating func resolveClient(publicURL: String?, trustedProxies: [CIDR],
                                       addressHeader: ForwardedHeader = .xForwardedFor) {
        if !trustedProxies.isEmpty, trustedProxies.contains(where: { $0.contains(clientAddress) }) {
            if let client = addressHeader.address(in: headers, trusted: trustedProxies) { clientAddress = client }
            if let proto = headers["x-forwarded-proto"]?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased(),
               proto == "https" || proto == "http" {
                scheme = proto
            }
        }
        if trustedProxies.isEmpty, ["127.0.0.1", "::1"].contains(clientAddress) {
            if let forwarded = Self.nearestForwarded(headers, addressHeader) {
                viaUntrustedProxy = true
                if CIDR.bytes(of: forwarded) != nil { clientAddress = forwarded }
            } else if publicURL != nil {
                loopbackMayBeProxy = true
            }
        }
        if let publicURL {
            baseURL = publicURL
            if publicURL.hasPrefix("https://") { scheme = "https" }
        } else {
            let host = headers["host"].flatMap { h in h.utf8.allSatisfy(Self.isHostByte) ? h : nil }
            baseURL = "\(scheme)://\(host ?? "127.0.0.1")"
        }
    }

    /// For a request from an untrusted proxy on this machine: the address the nearest proxy saw it come from, in the
    /// header the server was told proxies use ("" when that header is there but names none), or, when that one is
    /// absent, in whichever of the others came (the request is from a proxy all the same); nil when none came.
    static func nearestForwarded(_ headers: HTTPHeaders, _ preferred: ForwardedHeader = .xForwardedFor) -> String? {
        // Most requests carry none of them: one pass over the names says so without the order built below.
        guard headers.contains(where: { f in ForwardedHeader.allCases.contains { $0.rawValue == f.name } }) else { return nil }
        for h in [preferred] + [ForwardedHeader.xForwardedFor, .forwarded, .xRealIP].filter({ $0 != preferred }) {
            guard let value = headers[h.rawValue] else { continue }
            switch h {
            case .xForwardedFor: return value.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            case .xRealIP: return value.trimmingCharacters(in: .whitespaces)
            case .forwarded: return lastForwardedFor(value) ?? ""
            }
        }
        return nil
    }

    /// The last `for=` of a `Forwarded` header (RFC 7239), quotes, brackets and port taken off.
    static func lastForwardedFor(_ forwarded: String) -> String? {
        let last = forwarded.split(separator: ",").last ?? ""
        for pair in last.split(separator: ";") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard kv.count == 2, kv[0].lowercased() == "for" else { continue }
            var v = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            if v.hasPrefix("["), let close = v.firstIndex(of: "]") { v = String(v[v.index(after: v.startIndex)..<close]) }
            else if v.filter({ $0 == ":" }).count == 1, let colon = v.firstIndex(of: ":") { v = String(v[..<colon]) }
            return v
        }
        return nil
    }

    /// A byte a `Host` header may hold to be used in URLs: ASCII letters, digits and `-.:[]` (on bytes: walking the
    /// header's Characters was a visible share of a small request).
    static func isHostByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"): true
        default: false
        }
    }

    /// `127.0.0.1:5000` → `127.0.0.1`, `[::1]:5000` → `::1`.
    public static func host(ofAddress a: String) -> String {
        let utf8 = a.utf8
        if utf8.first == UInt8(ascii: "["), let close = utf8.firstIndex(of: UInt8(ascii: "]")) { return String(a[utf8.index(after: utf8.startIndex)..<close]) }
        if let colon = utf8.firstIndex(of: UInt8(ascii: ":")), utf8[utf8.index(after: colon)...].firstIndex(of: UInt8(ascii: ":")) == nil { return String(a[..<colon]) }
        return a
    }

    /// Query parameters, decoded (`+` as space), in order; a name may repeat.
    public var queryItems: [(name: String, value: String)] { HTTPRequest.formItems(rawQuery ?? "") }

    /// One query parameter's value, decoded; only the pair it names is decoded (the API reads two or three
    /// parameters of every request, and decoding every pair each time was a visible share of a small request).
    public func query(_ name: String) -> String? {
        guard var raw = rawQuery, !raw.isEmpty else { return nil }
        var wanted = name
        // Over the bytes ('&', '=', '%' and '+' are ASCII): walking String indices cost more than the lookup it serves.
        return raw.withUTF8 { utf8 in
            wanted.withUTF8 { want -> String? in
                var start = 0
                while start < utf8.count {
                    let end = utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.count
                    let pair = UnsafeBufferPointer(rebasing: utf8[start..<end])
                    start = end + 1
                    guard !pair.isEmpty else { continue }
                    let eq = pair.firstIndex(of: UInt8(ascii: "="))
                    let rawName = UnsafeBufferPointer(rebasing: pair[..<(eq ?? pair.count)])
                    let encoded = rawName.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
                    let matches = encoded ? PercentDecoding.decode(rawName, plusAsSpace: true) == name
                        : rawName.count == want.count && (want.isEmpty || memcmp(rawName.baseAddress!, want.baseAddress!, want.count) == 0)
                    guard matches else { continue }
                    guard let eq else { return "" }
                    return PercentDecoding.decode(UnsafeBufferPointer(rebasing: pair[(eq + 1)...]), plusAsSpace: true) ?? ""
                }
                return nil
            }
        }
    }

    /// `application/x-www-form-urlencoded` pairs.
    public static func formItems(_ s: String) -> [(name: String, value: String)] {
        s.split(separator: "&").compactMap { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ x: Substring) -> String? { PercentDecoding.decode(x, plusAsSpace: true) }
            guard let name = decode(kv[0]) else { return nil }
            return (name, kv.count > 1 ? decode(kv[1]) ?? "" : "")
        }
    }

    public var keepAlive: Bool {
        let connection = headers["connection"]
        if version == "HTTP/1.0" { return Self.lists(connection, "keep-alive") }
        return !Self.lists(connection, "close")
    }

    /// Whether a comma-separated header value (`Connection: keep-alive, Upgrade`) lists `token`, compared without
    /// regard to ASCII case. On the bytes: Foundation's substring search was a visible share of a small request.
    static func lists(_ value: String?, _ token: StaticString) -> Bool {
        guard let value else { return false }
        func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b + 32 : b }
        let wanted = UnsafeBufferPointer(start: token.utf8Start, count: token.utf8CodeUnitCount)
        return value.utf8.split(separator: UInt8(ascii: ",")).contains { part in
            let trimmed = part.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }.reversed()
            return trimmed.count == wanted.count && zip(trimmed, wanted).allSatisfy { lower($0) == lower($1) }
        }
    }

    public func acceptsGzip() -> Bool {
        guard let ae = headers["accept-encoding"]?.lowercased() else { return false }
        return ae.split(separator: ",").contains { part in
            let p = part.trimmingCharacters(in: .whitespaces)
            return p == "gzip" || (p.hasPrefix("gzip;") && !p.replacingOccurrences(of: " ", with: "").hasSuffix("q=0"))
        }
    }

    /// The token of an `Authorization: Bearer <token>` header, or "" (the metrics and admin endpoints' credential).
    public var bearerToken: String {
        guard let h = headers["authorization"], h.count > 7, h.prefix(7).lowercased() == "bearer " else { return "" }
        return String(h.dropFirst(7))
    }
}
