/// The check every form POST makes against cross-site submission: a browser names the page's origin in
/// `Origin`, and it must be this server's own as the client reached it (`HTTPRequest.origin`: the public URL,
/// or the request's scheme and `Host`). A request without `Origin` (not a browser form) passes; forms carry a
/// CSRF token or credentials besides.
public enum SameOrigin {
    public static func allows(_ req: HTTPRequest) -> Bool {
        guard let origin = req.headers["origin"]?.lowercased() else { return true }
        if origin == req.origin.lowercased() { return true }
        // The host the browser addressed, over either scheme (a TLS proxy that forwards no scheme).
        guard let host = req.headers["host"]?.lowercased(), !host.isEmpty else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }
}
