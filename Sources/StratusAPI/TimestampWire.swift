import StratusHTTP
import StratusModel

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

    /// The header's name as the header table keys it.
    private static let lowercasedHeader = header.lowercased()

    /// What the request asked for (milliseconds unless it named `reference-seconds`). Read for every record of a
    /// request, so it allocates nothing: the value is compared without its surrounding spaces in place.
    package init(_ request: HTTPRequest) {
        guard let value = request.headers[Self.lowercasedHeader] else { self = .milliseconds; return }
        let trimmed = value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
        self = trimmed.elementsEqual(Self.referenceSecondsName.utf8.reversed()) ? .referenceSeconds : .milliseconds
    }

    /// A TIMESTAMP value from the request; nil when it is not one (a fraction of a millisecond, a string, out of
    /// range).
    func timestamp(_ v: JSON) -> Timestamp? {
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
    var expected: String {
        switch self {
        case .milliseconds: "whole milliseconds since 1970"
        case .referenceSeconds: "seconds since 2001 (\(Self.header): \(Self.referenceSecondsName))"
        }
    }

    func write(_ t: Timestamp, _ w: inout JSONWriter) {
        switch self {
        case .milliseconds: w.int(t.millisSince1970)
        case .referenceSeconds: w.double(t.secondsSinceReferenceDate)
        }
    }
}
