import Foundation

/// Evaluates a filter against one record in memory, with the query engine's meaning, for what cannot go through
/// SQL: deciding in a write's transaction whether a changed record matches a query subscription.
extension QueryFilter {
    public func matches(_ record: StoredRecord) -> Bool {
        let actual: FieldValue?
        switch field {
        case .field(QueryFilter.allFields) where record.fields[QueryFilter.allFields] == nil
            && (comparator == .containsAllTokens || comparator == .containsAnyTokens):
            // `self CONTAINS 'words'`: the record's string fields together.
            actual = .list(.string, record.fields.values.compactMap { if case .string = $0 { $0 } else { nil } })
        case .field(let name): actual = record.fields[name]
        case .system(let s):
            switch s {
            case .recordName: actual = .string(record.recordName)
            case .createdTimestamp: actual = record.created.map { .timestamp(Timestamp(millisSince1970: $0.timestamp)) }
            case .modifiedTimestamp: actual = record.modified.map { .timestamp(Timestamp(millisSince1970: $0.timestamp)) }
            case .createdUserRecordName: actual = record.created.map { .reference(Reference(recordName: $0.userRecordName)) }
            case .modifiedUserRecordName: actual = record.modified.map { .reference(Reference(recordName: $0.userRecordName)) }
            case .share, .parent: actual = nil
            }
        }
        let items: [FieldValue] = if case .list(_, let xs)? = actual { xs } else { actual.map { [$0] } ?? [] }
        let wanted: [FieldValue] = if case .list(_, let xs) = value { xs } else { [value] }
        func contains(_ v: FieldValue) -> Bool { items.contains { Self.compare($0, v) == .orderedSame } }
        switch comparator {
        case .equals: return actual.map { Self.compare($0, value) == .orderedSame } ?? false
        case .notEquals: return actual.map { Self.compare($0, value) != .orderedSame } ?? false
        case .lessThan: return actual.map { Self.compare($0, value) == .orderedAscending } ?? false
        case .lessThanOrEquals: return actual.map { Self.compare($0, value) != .orderedDescending && Self.compare($0,
                value) != nil } ?? false
        case .greaterThan: return actual.map { Self.compare($0, value) == .orderedDescending } ?? false
        case .greaterThanOrEquals: return actual.map { Self.compare($0, value) != .orderedAscending && Self.compare($0,
                value) != nil } ?? false
        case .in: return actual.map { a in wanted.contains { Self.compare(a, $0) == .orderedSame } } ?? false
        case .notIn: return actual.map { a in !wanted.contains { Self.compare(a, $0) == .orderedSame } } ?? false
        case .beginsWith: return Self.text(actual).map { $0.hasPrefix(Self.text(value) ?? "\u{0}") } ?? false
        case .notBeginsWith: return Self.text(actual).map { !$0.hasPrefix(Self.text(value) ?? "\u{0}") } ?? false
        case .listContains: return contains(value)
        case .notListContains: return actual != nil && !contains(value)
        case .listContainsAny: return wanted.contains(where: contains)
        case .notListContainsAny: return actual != nil && !wanted.contains(where: contains)
        case .listContainsAll: return wanted.allSatisfy(contains)
        case .notListContainsAll: return actual != nil && !wanted.allSatisfy(contains)
        case .listMemberBeginsWith:
            let prefix = Self.text(value) ?? "\u{0}"
            return items.contains { Self.text($0)?.hasPrefix(prefix) ?? false }
        case .notListMemberBeginsWith:
            let prefix = Self.text(value) ?? "\u{0}"
            return actual != nil && !items.contains { Self.text($0)?.hasPrefix(prefix) ?? false }
        case .containsAllTokens, .containsAnyTokens:
            let have = Set(items.compactMap(Self.text).flatMap(Self.tokens))
            let want = Self.tokens(Self.text(value) ?? "")
            guard !want.isEmpty else { return false }
            return comparator == .containsAllTokens ? want.allSatisfy(have.contains) : want.contains(where: have.contains)
        case .near:
            guard case .location(let here)? = actual, case .location(let there) = value else { return false }
            return Location.distance(here.latitude, here.longitude, there.latitude,
                                     there.longitude) <= (distance ?? .infinity)
        }
    }

    /// Full-text tokens as the index makes them: lowercased runs of letters and digits.
    static func tokens(_ s: String) -> [String] {
        s.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    static func text(_ v: FieldValue?) -> String? {
        switch v {
        case .string(let s)?: s
        case .reference(let r)?: r.recordName
        default: nil
        }
    }

    /// The order of two scalar values of comparable kinds (numbers with numbers, text with text and references,
    /// bytes with bytes, timestamps with timestamps and with numbers of milliseconds, as Web Services clients
    /// write them); nil when they cannot be compared.
    static func compare(_ a: FieldValue, _ b: FieldValue) -> ComparisonResult? {
        func num(_ v: FieldValue) -> Double? {
            switch v {
            case .int64(let i): Double(i)
            case .double(let d): d
            default: nil
            }
        }
        func order<T: Comparable>(_ x: T,
                                  _ y: T) -> ComparisonResult { x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame }
        switch (a, b) {
        case (.int64(let x), .int64(let y)):
            return order(x, y)
        case (.timestamp(let x), _):
            return Timestamp(millisecondsIn: b).map { order(x, $0) }
        case (_, .timestamp(let y)):
            return Timestamp(millisecondsIn: a).map { order($0, y) }
        case (.bytes(let x), .bytes(let y)):
            return x == y ? .orderedSame : order(x.base64EncodedString(), y.base64EncodedString())
        case (.location(let x), .location(let y)):
            return x.latitude == y.latitude && x.longitude == y.longitude ? .orderedSame : nil
        default:
            if let x = num(a), let y = num(b) { return order(x, y) }
            if let x = text(a), let y = text(b) {
                // Byte order, as SQLite compares text.
                return x.utf8.lexicographicallyPrecedes(y.utf8) ? .orderedAscending : x.utf8.elementsEqual(y.utf8) ? .orderedSame : .orderedDescending
            }
            return nil
        }
    }
}
