/// A developer's backend that hears public-database changes of a container environment: every create, update and
/// delete of the named record types (all when none are named). Private and shared data never goes to a webhook.
public struct Webhook: Hashable, Sendable {
    public var id: Int64
    public var url: String
    /// Empty: every record type.
    public var recordTypes: [String]
    public var enabled: Bool
    /// Deliveries that failed for good since the last success.
    public var failures: Int
    public var lastStatus: String?
    public var lastDeliveryAt: Int64?
    public var createdAt: Int64

    public init(id: Int64, url: String, recordTypes: [String], enabled: Bool, failures: Int, lastStatus: String?,
                lastDeliveryAt: Int64?, createdAt: Int64) {
        self.id = id
        self.url = url
        self.recordTypes = recordTypes
        self.enabled = enabled
        self.failures = failures
        self.lastStatus = lastStatus
        self.lastDeliveryAt = lastDeliveryAt
        self.createdAt = createdAt
    }

    public func hears(_ recordType: String) -> Bool { enabled && (recordTypes.isEmpty || recordTypes.contains(recordType)) }

    /// Only http(s), with a host (a name, an IPv4 address or a bracketed IPv6 one) and an optional port, no
    /// credentials in the URL, at most 2,048 bytes, and only characters a URL may hold (RFC 3986: no quotes, angle
    /// brackets, braces, spaces or controls; `%` only as an escape).
    public static func validate(url: String) throws(StratusError) {
        guard url.utf8.count <= 2048, url.utf8.allSatisfy(isURLByte) else {
            throw .badRequest("a webhook URL is at most 2048 bytes of the characters a URL may hold (no quotes, spaces or angle brackets)")
        }
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { throw .badRequest("a webhook URL is http:// or https://") }
        let rest = url.drop(while: { $0 != ":" }).dropFirst(3)
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        guard !authority.isEmpty, !authority.contains("@") else { throw .badRequest("a webhook URL needs a host and no credentials (user:password@)") }
        guard isAuthority(authority) else { throw .badRequest("a webhook URL's host is a name, an IPv4 address or [an IPv6 one], with an optional :port") }
        var escapes = Array(url.utf8)[...]
        while let i = escapes.firstIndex(of: UInt8(ascii: "%")) {
            let hex = escapes[(i + 1)...].prefix(2)
            guard hex.count == 2, hex.allSatisfy(isHexDigit) else { throw .badRequest("a webhook URL's % begins an escape of two hex digits") }
            escapes = escapes[(i + 3)...]
        }
    }

    private static func isAuthority(_ a: Substring) -> Bool {
        var host = a, port: Substring?
        if a.hasPrefix("[") {
            guard let close = a.firstIndex(of: "]") else { return false }
            host = a[a.index(after: a.startIndex)..<close]
            let after = a[a.index(after: close)...]
            guard host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), after.isEmpty || after.hasPrefix(":") else { return false }
            port = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = a.lastIndex(of: ":") {
            host = a[..<colon]
            port = a[a.index(after: colon)...]
        }
        if let port { guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), let n = Int(port), n <= 65535 else { return false } }
        guard !host.isEmpty else { return false }
        if a.hasPrefix("[") { return true }
        return host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }
    }

    /// RFC 3986's unreserved, reserved and `%`: what may appear in a URL unescaped.
    private static func isURLByte(_ b: UInt8) -> Bool {
        isAlphanumeric(b) || "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(b)
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(b)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(b)
    }
}
