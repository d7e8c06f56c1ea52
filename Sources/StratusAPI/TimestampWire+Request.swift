import StratusHTTP
import StratusModel

extension TimestampWire {
    /// The header's name as the header table keys it.
    private static let lowercasedHeader = header.lowercased()

    /// What the request asked for (milliseconds unless it named `reference-seconds`). Read for every record of a
    /// request, so it allocates nothing: the value is compared without its surrounding spaces in place.
    package init(_ request: HTTPRequest) {
        guard let value = request.headers[Self.lowercasedHeader] else { self = .milliseconds; return }
        let trimmed = value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
        self = trimmed.elementsEqual(Self.referenceSecondsName.utf8.reversed()) ? .referenceSeconds : .milliseconds
    }
}
