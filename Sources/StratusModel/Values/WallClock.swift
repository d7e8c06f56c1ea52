import Foundation

/// Milliseconds since 1970, CloudKit's unit for every timestamp. Named apart from Swift's `Clock` protocol, which
/// the old name `Clock` shadowed.
public enum WallClock {
    public static func nowMillis() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
