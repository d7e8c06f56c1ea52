/// The colour scheme an administrator chose for the console: `system` follows the browser's
/// `prefers-color-scheme`; the others hold whatever the system prefers.
public enum ConsoleTheme: String, Sendable, CaseIterable {
    case system, light, dark
}
