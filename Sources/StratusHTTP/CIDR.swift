#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address range (`10.0.0.0/8`, `127.0.0.1`, `::1/128`), for `serve --trust-proxy`.
public struct CIDR: Sendable, Hashable, CustomStringConvertible {
    let network: [UInt8]
    let prefix: Int
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let address = parts.first.flatMap({ CIDR.bytes(of: String($0)) }) else { return nil }
        let bits = address.count * 8
        let prefix: Int
        if parts.count == 2 {
            guard let p = Int(parts[1]), (0...bits).contains(p) else { return nil }
            prefix = p
        } else {
            prefix = bits
        }
        network = address
        self.prefix = prefix
        description = text
    }

    public func contains(_ address: String) -> Bool {
        guard var a = CIDR.bytes(of: address) else { return false }
        // An IPv4 peer seen on an IPv6 socket (::ffff:a.b.c.d) matches IPv4 ranges.
        if a.count == 16, network.count == 4, a[0..<10].allSatisfy({ $0 == 0 }), a[10] == 0xFF, a[11] == 0xFF { a = Array(a[12...]) }
        guard a.count == network.count else { return false }
        var remaining = prefix
        for i in 0..<a.count where remaining > 0 {
            let take = min(8, remaining)
            let mask: UInt8 = take == 8 ? 0xFF : ~(0xFF >> UInt8(take))
            if a[i] & mask != network[i] & mask { return false }
            remaining -= take
        }
        return true
    }

    /// An address's bytes: 4 for IPv4, 16 for IPv6; nil if it is neither.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
