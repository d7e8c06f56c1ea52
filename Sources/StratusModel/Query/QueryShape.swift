/// What a query looks like once its values are taken away: the record type, the fields it pins with equality
/// (EQUALS, and IN as a small union of equalities), at most one range field, the other filters by kind, and the
/// sort keys. Two queries of one shape are served by the same index, so shapes are what an app's workload is
/// counted and indexed by.
public struct QueryShape: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    public var recordType: String
    /// Sorted, so that `a = ? AND b = ?` and `b = ? AND a = ?` are one shape.
    public var equalities: [String]
    public var range: String?
    /// Filters no composite index serves (lists, tokens, NEAR, negations), as `field COMPARATOR`, sorted.
    public var others: [String]
    /// Sort keys in order, `-` before a descending one.
    public var sorts: [String]

    public init(recordType: String, equalities: [String], range: String?, others: [String], sorts: [String]) {
        self.recordType = recordType
        self.equalities = equalities
        self.range = range
        self.others = others
        self.sorts = sorts
    }

    public init(_ query: Query) {
        var equalities: Set<String> = [], others: [String] = []
        var range: String?
        for f in query.filters {
            let name = f.field.displayName
            switch f.comparator {
            case .equals, .in: equalities.insert(name)
            case .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .beginsWith:
                if range == nil || range == name { range = name } else { others.append("\(name) \(f.comparator.rawValue)") }
            default: others.append("\(name) \(f.comparator.rawValue)")
            }
        }
        self.init(recordType: query.recordType, equalities: equalities.sorted(), range: range, others: others.sorted(),
                  sorts: query.sorts.map { ($0.ascending ? "" : "-") + $0.field.displayName + ($0.relativeLocation == nil ? "" : "@") })
    }

    /// `Bench: title = · count range · sort -count`, the shape as people read it (and its key where it is stored).
    public var description: String {
        var parts: [String] = []
        if !equalities.isEmpty { parts.append(equalities.map { "\($0) =" }.joined(separator: ", ")) }
        if let range { parts.append("\(range) range") }
        if !others.isEmpty { parts.append(others.joined(separator: ", ")) }
        parts.append(sorts.isEmpty ? "no sort" : "sort " + sorts.joined(separator: ", "))
        return "\(recordType): " + parts.joined(separator: " · ")
    }

    public static func < (a: QueryShape, b: QueryShape) -> Bool { a.description < b.description }

    /// The field a composite index would order by: the first sort key, or without one the range field.
    public var orderField: String? {
        if let first = sorts.first { return first.hasSuffix("@") ? nil : String(first.drop { $0 == "-" }) }
        return range
    }

    /// Whether one composite index (equality fields, then the order field) can serve every query of this shape.
    public var wantsCompositeIndex: Bool {
        guard !equalities.isEmpty, others.isEmpty, sorts.count <= 1, let order = orderField, !equalities.contains(order) else { return false }
        if let range, range != order { return false }
        return true
    }
}
