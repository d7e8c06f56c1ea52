import Foundation

/// A TIMESTAMP value, held as Foundation's `Date` holds it: seconds since 2001-01-01 00:00 UTC in a `Double`.
///
/// CloudKit gives back the `Date` it was given, and apps compare dates with `==` (a last-writer-wins merge on a
/// modification date, two devices that must hold equal values). Milliseconds since 1970, CloudKit Web Services'
/// wire form, round a `Date` (`…269.9655557` came back `…269.966`), so the store keeps the `Date`'s own bits and
/// converts to milliseconds only for clients that speak them. Every millisecond value converts here and back
/// exactly (within about 35,000 years of 2001, the range `validMillis` admits).
public struct Timestamp: Hashable, Comparable, Sendable, Codable {
    /// Seconds between 1970-01-01 and 2001-01-01, Foundation's reference date.
    public static let referenceDateMillis: Int64 = 978_307_200_000
    /// The milliseconds since 1970 a TIMESTAMP may hold: 1.1e15 either side of 2001, about 35,000 years, within
    /// which a count converts to seconds and back to the same count (under 2^50, the product of two roundings
    /// stays within a quarter of a millisecond).
    public static let validMillis: ClosedRange<Int64> = (referenceDateMillis - 1_100_000_000_000_000)...(referenceDateMillis + 1_100_000_000_000_000)
    /// The seconds since 2001 a TIMESTAMP may hold (the same span).
    public static let validSeconds: ClosedRange<Double> = -1.1e12...1.1e12

    public var secondsSinceReferenceDate: Double

    public init(secondsSinceReferenceDate: Double) { self.secondsSinceReferenceDate = secondsSinceReferenceDate }

    /// A millisecond count, as Web Services clients send it (exact for every count in `validMillis`).
    public init(millisSince1970 ms: Int64) {
        let (since2001, overflow) = ms.subtractingReportingOverflow(Self.referenceDateMillis)
        secondsSinceReferenceDate = overflow ? Double(ms) / 1000 - 978_307_200 : Double(since2001) / 1000
    }

    public init(_ date: Date) { secondsSinceReferenceDate = date.timeIntervalSinceReferenceDate }

    public var date: Date { Date(timeIntervalSinceReferenceDate: secondsSinceReferenceDate) }

    /// Milliseconds since 1970, rounded to the nearest, for clients that read them (clamped rather than trapping
    /// for a value outside what any client can send).
    public var millisSince1970: Int64 {
        let ms = (secondsSinceReferenceDate * 1000).rounded()
        guard !ms.isNaN else { return 0 }
        let bound = Double(Self.validMillis.upperBound)
        return Int64(min(max(ms, -bound), bound)) &+ Self.referenceDateMillis
    }

    /// Whether the value is one a client may store: finite and within `validSeconds`.
    public var isValid: Bool { secondsSinceReferenceDate.isFinite && Self.validSeconds.contains(secondsSinceReferenceDate) }

    /// Whether the value is a whole number of milliseconds since 1970 (every value a Web Services client wrote).
    public var isWholeMillisecond: Bool {
        guard isValid else { return false }
        return Timestamp(millisSince1970: millisSince1970) == self
    }

    public static func < (a: Timestamp,
                          b: Timestamp) -> Bool { a.secondsSinceReferenceDate < b.secondsSinceReferenceDate }

    /// A timestamp, or a number read as milliseconds since 1970 (how Web Services clients compare with one); nil
    /// for other values.
    public init?(millisecondsIn value: FieldValue) {
        switch value {
        case .timestamp(let t): self = t
        case .int64(let ms): self.init(millisSince1970: ms)
        case .double(let ms) where ms.isFinite: self.init(secondsSinceReferenceDate: (ms - Double(Self.referenceDateMillis)) / 1000)
        default: return nil
        }
    }
}
