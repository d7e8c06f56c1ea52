import Foundation

/// A way a new account may be made in a container, as the operator chooses (`stratus auth sign-up --allow`): with
/// an email and a password on the sign-in page, with a passkey alone there (with `--public-url`), or by a first
/// sign-in with an OpenID provider the container trusts.
/// Accounts that exist keep signing in whichever ways are allowed; operators still make accounts themselves.
public enum SignUpWay: String, Sendable, CaseIterable, Comparable {
    case password, passkey, provider

    /// Today's: a password, or a provider (a container signs in with a provider only once one is added). Passkey
    /// accounts are the operator's to allow.
    public static let defaults: Set<SignUpWay> = [.password, .provider]

    /// `password,provider` read back; BAD_REQUEST names what is not a way. Empty (or `none`) is none: only the
    /// accounts that exist, and those the operator makes.
    public static func parse(_ list: String) throws(StratusError) -> Set<SignUpWay> {
        var ways: Set<SignUpWay> = []
        if list.trimmingCharacters(in: .whitespaces) == "none" { return ways }
        for part in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            guard let way = SignUpWay(rawValue: part) else {
                let known = allCases.map(\.rawValue).joined(separator: ", ")
                throw .badRequest("'\(part.prefix(40))' is not a way to sign up: \(known)")
            }
            ways.insert(way)
        }
        return ways
    }

    /// The ways as stored and printed: `password,provider`, or `none`.
    public static func spelled(_ ways: Set<SignUpWay>) -> String {
        ways.isEmpty ? "none" : ways.sorted().map(\.rawValue).joined(separator: ",")
    }

    public static func < (a: SignUpWay, b: SignUpWay) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
