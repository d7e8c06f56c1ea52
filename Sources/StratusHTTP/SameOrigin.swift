/// The check every form POST makes against cross-site submission: a browser names the page's origin in
/// `Origin`, and it must be this server's own, as the client reached it (its `Host`, over http or https), or
/// the public URL the server runs behind. A request without `Origin` (not a browser form) passes; forms carry
/// a CSRF token or credentials besides.
public enum SameOrigin {
    public static func allows(_ req: HTTPRequest, publicOrigin: String? = nil) -> Bool {
        guard let origin = req.headers["origin"] else { return true }
        if let publicOrigin, origin == publicOrigin { return true }
        guard let host = req.headers["host"], !host.isEmpty else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }
}
