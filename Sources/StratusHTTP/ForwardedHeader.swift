/// The header a proxy puts the client's address in (`serve --proxy-address-header`). Only that header is believed,
/// from a trusted proxy: a proxy that sets `X-Real-IP` passes on the client's own `X-Forwarded-For` unchanged, and a
/// server that believed that one would let every client choose its address for throttles and logs.
public enum ForwardedHeader: String, Sendable, CaseIterable {
    /// nginx's `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`, HAProxy's `option forwardfor`, most load
    /// balancers: the nearest address that is not itself a trusted proxy.
    case xForwardedFor = "x-forwarded-for"
    /// nginx's `proxy_set_header X-Real-IP $remote_addr`: one address, set by the proxy.
    case xRealIP = "x-real-ip"
    /// RFC 7239's `Forwarded: for=…` (Caddy can, Envoy can): the last `for=`.
    case forwarded

    /// The client's address the proxy forwarded in this header, if it sent one that parses.
    func address(in headers: HTTPHeaders, trusted: [CIDR]) -> String? {
        switch self {
        case .xForwardedFor:
            guard let value = headers["x-forwarded-for"] else { return nil }
            let hops = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let client = hops.reversed().first { hop in !trusted.contains { $0.contains(hop) } } ?? hops.first
            return client.flatMap { CIDR.bytes(of: $0) != nil ? $0 : nil }
        case .xRealIP:
            guard let real = headers["x-real-ip"]?.trimmingCharacters(in: .whitespaces), CIDR.bytes(of: real) != nil else { return nil }
            return real
        case .forwarded:
            guard let value = headers["forwarded"], let last = HTTPRequest.lastForwardedFor(value), CIDR.bytes(of: last) != nil else { return nil }
            return last
        }
    }
}
