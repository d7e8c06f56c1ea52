/// A browser origin, `scheme://host[:port]`, in one canonical spelling so that two origins compare exactly by
/// scheme, host and port: the scheme and host lowercased, the scheme's default port left out. API tokens list
/// them; sign-in callbacks, `postMessage` targets and CORS are checked against them.
public struct WebOrigin: Sendable, Hashable, CustomStringConvertible {
    public let scheme, host: String
    public let port: Int?

    /// Parses an origin (`https://app.example:8443`) or, with `allowingPath`, any http(s) URL and takes its origin.
    /// Userinfo (`https://a@b`) is refused: browsers strip it, and it is the classic way to disguise a host.
    public init?(_ text: String, allowingPath: Bool = false) {
        guard text.utf8.count <= 2048, let sep = text.range(of: "://") else { return nil }
        let scheme = text[..<sep.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = text[sep.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            guard allowingPath || rest[end...] == "/" else { return nil }  // a typed origin may end in one slash
            rest = rest[..<end]
        }
        guard !rest.isEmpty, !rest.contains("@"), !rest.contains("\\") else { return nil }
        var host = Substring(rest)
        var port: Int?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[...close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let p = Int(host[host.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
            host = host[..<colon]
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._[]:".contains($0)) }) else { return nil }
        if port == (scheme == "https" ? 443 : 80) { port = nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }

    public var description: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }
}
