/// A console administrator.
public struct Admin: Sendable, Hashable {
    public var id: Int64
    public var email: String
    /// The console's colour scheme for this admin (see `ServerStore.setTheme`).
    public var theme: ConsoleTheme
    public init(id: Int64, email: String,
                theme: ConsoleTheme = .system) { self.id = id; self.email = email; self.theme = theme }
}
