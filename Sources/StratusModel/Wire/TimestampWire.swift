import StratusJSON

/// How a request spells TIMESTAMP field values, both ways.
///
/// CloudKit Web Services writes milliseconds since 1970, whole ones, and every client that does not ask for more
/// (CloudKit JS, MistKit, the Python client, curl) keeps getting exactly that. A `Date` is finer than that, and
/// CloudKit gives an app back the `Date` it saved, so StratusKit asks with `X-Stratus-Timestamps: reference-seconds`
/// for `Date`'s own form: seconds since 2001-01-01 as a JSON number, written with every digit its `Double` needs.
/// The header covers record field values and query filter values (`records/*`, `changes/*`); record stamps
/// (`created`, `modified`), location timestamps and subscriptions stay in milliseconds.
package enum TimestampWire: Sendable {
    case milliseconds
    case referenceSeconds

    package static let header = "X-Stratus-Timestamps"
    package static let referenceSecondsName = "reference-seconds"

    /// A TIMESTAMP value from the request; nil when it is not one (a fraction of a millisecond, a string, out of
    /// range).
    package func timestamp(_ v: JSON) -> Timestamp? {
        let t: Timestamp
        switch self {
        case .milliseconds:
            guard let ms = v.int64, Timestamp.validMillis.contains(ms) else { return nil }
            t = Timestamp(millisSince1970: ms)
        case .referenceSeconds:
            guard v.string == nil, let s = v.double else { return nil }
            t = Timestamp(secondsSinceReferenceDate: s)
        }
        return t.isValid ? t : nil
    }

    /// What a request is told when its TIMESTAMP is not one.
    package var expected: String {
        switch self {
        case .milliseconds: "whole milliseconds since 1970"
        case .referenceSeconds: "seconds since 2001 (\(Self.header): \(Self.referenceSecondsName))"
        }
    }

    package func write(_ t: Timestamp, _ w: inout JSONWriter) {
        switch self {
        case .milliseconds: w.int(t.millisSince1970)
        case .referenceSeconds: w.double(t.secondsSinceReferenceDate)
        }
    }
}
