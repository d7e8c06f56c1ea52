/// A schema-language error that points at the line and column where reading stopped.
public struct SchemaSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line, column: Int
    public var message: String

    public var description: String { "line \(line), column \(column): \(message)" }

    public var stratusError: StratusError { .badRequest("schema: \(description)") }
}
