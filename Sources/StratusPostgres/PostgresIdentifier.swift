import Foundation

/// SQL identifiers Stratus builds from names (schemas per container environment, channels): always quoted.
public enum PostgresIdentifier {
    /// `name` as a quoted identifier, its quotes doubled: safe for any text.
    public static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"",
            with: "\"\"") + "\"" }
}
