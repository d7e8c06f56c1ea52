import Foundation

/// An OpenID Connect provider a container's users may sign in with (Sign in with Apple, Google, an operator's own):
/// its name in the container, its issuer, and the client IDs its identity tokens may be for (`aud`). The name is
/// what apps say (`"provider": "apple"`); the user is the token's `(iss, sub)`, so renaming or removing a provider
/// orphans no one.
public struct IdentityProvider: Sendable, Hashable {
    public var name: String
    /// The issuer exactly as its tokens' `iss` and its discovery document spell it.
    public var issuer: String
    public var clientIDs: [String]

    /// Apple's issuer (Sign in with Apple), whose tokens carry no `{tenantid}` and whose discovery document lists
    /// its keys like any other provider's.
    public static let appleIssuer = "https://appleid.apple.com"

    /// A provider checked as the operator gave it: a name of letters, digits, `-` and `_`, at most 64; an `https`
    /// issuer (plain `http` only on loopback, for local providers and tests) with no query, fragment or
    /// `{tenantid}`-style placeholder (multi-tenant issuers are not supported: each tenant is a provider of its own);
    /// one to 16 client IDs. BAD_REQUEST says what is wrong.
    public init(name: String, issuer: String, clientIDs: [String]) throws(StratusError) {
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy({ Self.nameBytes.contains($0) }) else {
            throw .badRequest("a provider's name is 1 to 64 letters, digits, '-' and '_'")
        }
        let issuer = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard Self.isAllowed(issuer: issuer) else {
            throw .badRequest(
                "an issuer is an https URL without query, fragment or placeholder (plain http only on loopback)")
        }
        let ids = clientIDs.map { $0.trimmingCharacters(in: .whitespaces) }
        guard (1...16).contains(ids.count), ids.allSatisfy({ (1...255).contains($0.utf8.count) }) else {
            throw .badRequest("a provider has 1 to 16 client IDs of at most 255 bytes")
        }
        self.name = name
        self.issuer = issuer
        self.clientIDs = ids
    }

    /// Whether `issuer` may be fetched from and trusted: `https`, or `http` on a loopback host.
    public static func isAllowed(issuer: String) -> Bool {
        guard issuer.utf8.count <= 512, !issuer.contains("{"), let url = URL(string: issuer), let host = url.host,
              !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil else { return false }
        switch url.scheme {
        case "https": return true
        case "http": return isLoopback(host)
        default: return false
        }
    }

    /// Whether a URL the provider publishes (its keys) may be fetched: as the issuer, `https` or loopback `http`.
    public static func isFetchable(_ url: URL) -> Bool {
        guard let host = url.host, !host.isEmpty else { return false }
        return url.scheme == "https" || (url.scheme == "http" && isLoopback(host))
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    private static let nameBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".utf8)
}
