extension Duration {
    /// The duration in milliseconds, fractional (for figures people read: build times, step times).
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
