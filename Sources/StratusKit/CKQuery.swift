import Foundation

/// Mirrors `CKQuery`: a record type, a predicate and sort descriptors. The predicate is read with StratusKit's
/// own parser of CloudKit's predicate grammar (see `PredicateParser`): from an `NSPredicate(format:…)` (on Apple
/// platforms its `predicateFormat`; on Linux the format StratusKit's `NSPredicate(format:)` kept), or from
/// StratusKit's own `CKQuery(recordType:predicateFormat:_:)`. A predicate CloudKit would not accept fails the query
/// with `.invalidArguments`.
public final class CKQuery: NSObject, @unchecked Sendable {
    /// Mirrors `CKQuery.recordType`.
    public let recordType: CKRecord.RecordType
    /// Mirrors `CKQuery.predicate`. For a query made from a format string on Linux this is `NSPredicate(value: true)`
    /// and `predicateFormat` holds the text.
    public let predicate: NSPredicate
    /// The format the filters were read from.
    public let predicateFormat: String
    /// Mirrors `CKQuery.sortDescriptors`: `NSSortDescriptor(key:ascending:)` and `CKLocationSortDescriptor`.
    public var sortDescriptors: [NSSortDescriptor]?

    let filters: Result<[[String: Any]], CKError>

    /// Mirrors `CKQuery(recordType:predicate:)`.
    public init(recordType: CKRecord.RecordType, predicate: NSPredicate) {
        self.recordType = recordType
        self.predicate = predicate
        #if canImport(Darwin)
        predicateFormat = predicate.predicateFormat
        filters = PredicateParser.filters(predicate.predicateFormat, [])
        #else
        (predicateFormat, filters) = Self.filters(of: predicate)
        #endif
    }

    /// StratusKit's spelling for a predicate given as CloudKit's format string and its arguments, on every
    /// platform: `CKQuery(recordType: "Note", predicateFormat: "title BEGINSWITH %@ AND stars > %@", "Ab", 3)`.
    public init(recordType: CKRecord.RecordType, predicateFormat: String, _ arguments: any CKRecordValueProtocol...) {
        self.recordType = recordType
        self.predicate = NSPredicate(value: true)
        self.predicateFormat = predicateFormat
        filters = PredicateParser.filters(predicateFormat, arguments)
    }

    /// On Linux, what an `NSPredicate` says: the format it was made with (`NSPredicate(format:)`, see
    /// NSPredicate+Format), or `NSPredicate(value:)`'s truth.
    static func filters(of predicate: NSPredicate) -> (String, Result<[[String: Any]], CKError>) {
        if let (format, arguments) = PredicateFormats.shared.format(of: predicate) {
            guard let values = PredicateFormats.values(arguments) else {
                return (format, .failure(CKError.make(.invalidArguments, "a predicate argument is not a record value (a string, number, date, reference, location or list)")))
            }
            return (format, PredicateParser.filters(format, values))
        }
        let matchesAll = predicate.evaluate(with: nil)
        return (matchesAll ? "TRUEPREDICATE" : "FALSEPREDICATE",
                matchesAll ? .success([]) : .failure(CKError.make(.invalidArguments, "FALSEPREDICATE matches nothing and is not supported")))
    }

    /// A query rebuilt from its wire form (a saved cursor).
    init?(wire: [String: Any]) {
        guard let type = wire["recordType"] as? String else { return nil }
        recordType = type
        predicate = NSPredicate(value: true)
        predicateFormat = "(from a cursor)"
        filters = .success(wire["filterBy"] as? [[String: Any]] ?? [])
        savedSorts = wire["sortBy"] as? [[String: Any]]
    }

    private var savedSorts: [[String: Any]]?

    /// The `query` dictionary of `records/query`.
    func wireQuery() throws -> [String: Any] {
        var q: [String: Any] = ["recordType": recordType]
        let f = try filters.get()
        if !f.isEmpty { q["filterBy"] = f }
        if let sorts = savedSorts { q["sortBy"] = sorts; return q }
        if let sorts = sortDescriptors, !sorts.isEmpty {
            q["sortBy"] = try sorts.map { d -> [String: Any] in
                guard let key = d.stratusKey else { throw CKError.make(.invalidArguments, "a sort descriptor needs a key") }
                var s: [String: Any] = PredicateParser.systemFields[key].map { ["systemFieldName": $0] } ?? ["fieldName": key]
                s["ascending"] = d.ascending
                if let loc = d as? CKLocationSortDescriptor, let (j, _) = RecordCoder.wire(loc.relativeLocation) { s["relativeLocation"] = j }
                return s
            }
        }
        return q
    }
}
