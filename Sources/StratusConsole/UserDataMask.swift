import StratusModel

/// What a console page may show of users' personal data: everything where an admin may browse it, and outside
/// that (Production, without `serve --allow-production-user-data`) emails masked as the Users page masks them
/// (`a…@example.com`), record names shortened to their first character, share URLs (capabilities) left out.
struct UserDataMask {
    let shown: Bool

    init(_ scope: ConsoleScope) { shown = scope.userDataBrowsable }

    func email(_ e: String) -> String { shown ? e : Self.maskedEmail(e) }

    func recordName(_ r: String) -> String {
        guard !shown, let first = r.first else { return r }
        return "\(first)…"
    }

    /// A share's URL, or nil where it may not be shown (whoever holds it may join the share).
    func shareURL(_ url: String) -> String? { shown ? url : nil }

    /// A user's full name, or a dash.
    static func displayName(_ u: ContainerUser) -> String {
        let full = "\(u.firstName) \(u.lastName)".trimmingCharacters(in: .whitespaces)
        return full.isEmpty ? "—" : full
    }

    /// `alice@example.com` as `a…@example.com`.
    static func maskedEmail(_ email: String) -> String {
        guard let at = email.firstIndex(of: "@"), let first = email.first else { return "…" }
        return "\(first)…\(email[at...])"
    }
}
