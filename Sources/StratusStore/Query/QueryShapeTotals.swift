import StratusModel

/// A query shape's totals as the shape log last wrote them: how often it ran and, on SQLite, what it cost (the
/// engine's steps per row returned; PostgreSQL does not say). What the server's keeper picks automatic indexes by.
public struct QueryShapeTotals: Sendable {
    public let shape: QueryShape
    public let calls: Int
    public let stepsPerRow: Double?
}
