import Foundation
import StratusJSON

/// Mirrors `CKQuery`: a record type, a predicate and sort descriptors. The predicate is read with StratusKit's
/// own parser of CloudKit's predicate grammar (see `PredicateParser`): from an `NSPredicate(format:…)` (on Apple
/// platforms its `predicateFormat`; on Linux the format StratusKit's `NSPredicate(format:)` kept), or from
/// StratusKit's own `CKQuery(recordType:predicateFormat:_:)`. A predicate CloudKit would not accept fails the query
/// with `.invalidArguments`.
public final class CKQuery: NSObject, NSSecureCoding, @unchecked Sendable {
    /// Mirrors `CKQuery.recordType`.
    public let recordType: CKRecord.RecordType
    /// Mirrors `CKQuery.predicate`. For a query made from a format string on Linux this is `NSPredicate(value: true)`
    /// and `predicateFormat` holds the text.
    public let predicate: NSPredicate
    /// The format the filters were read from.
    public let predicateFormat: String
    /// Mirrors `CKQuery.sortDescriptors`: `NSSortDescriptor(key:ascending:)` and `CKLocationSortDescriptor`.
    public var sortDescriptors: [NSSortDescriptor]?

    let filters: Result<[WireObject], CKError>

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
    static func filters(of predicate: NSPredicate) -> (String, Result<[WireObject], CKError>) {
        if let (format, arguments) = PredicateFormats.shared.format(of: predicate) {
            guard let values = PredicateFormats.values(arguments) else {
                return (format, .failure(CKError.make(.invalidArguments,
                                                      "a predicate argument is not a record value (a string, number, date, reference, location or list)")))
            }
            return (format, PredicateParser.filters(format, values))
        }
        let matchesAll = predicate.evaluate(with: nil)
        return (matchesAll ? "TRUEPREDICATE" : "FALSEPREDICATE",
                matchesAll ? .success([]) : .failure(CKError.make(.invalidArguments,
                                                                  "FALSEPREDICATE matches nothing and is not supported")))
    }

    /// A query rebuilt from its wire form (a saved cursor).
    init?(wire: WireObject) {
        guard let type = wire["recordType"]?.string else { return nil }
        recordType = type
        predicate = NSPredicate(value: true)
        predicateFormat = "(from a cursor)"
        filters = .success(wire["filterBy"]?.objects ?? [])
        savedSorts = wire["sortBy"]?.objects
    }

    private var savedSorts: [WireObject]?

    // MARK: Coding

    /// Keyed archives of it are secure (NSSecureCoding), as CloudKit's.
    public static var supportsSecureCoding: Bool { true }

    /// Mirrors CloudKit's archiving of a query: its record type, the predicate as StratusKit read it (its format and
    /// the filters it became) and its sort. A query whose predicate was refused archives the refusal.
    public func encode(with coder: NSCoder) {
        coder.encode(recordType as NSString, forKey: "recordType")
        coder.encode(predicateFormat as NSString, forKey: "predicateFormat")
        switch filters {
        case .success(let f):
            coder.encode(JSON(f).encoded as NSData, forKey: "filters")
        case .failure(let e):
            coder.encode(e.localizedDescription as NSString, forKey: "predicateError")
        }
        if let sorts = try? wireQuery()["sortBy"] { coder.encode(sorts.encoded as NSData, forKey: "sortBy") }
    }

    /// Reads what `encode(with:)` wrote; nil for a damaged archive. The query runs as the archived one did; its
    /// `predicate` is `NSPredicate(value: true)` on Linux and `predicateFormat` holds the text, as for a query made
    /// from a format string.
    public init?(coder: NSCoder) {
        guard let type = coder.optionalObject(of: NSString.self, forKey: "recordType") as String? else { return nil }
        recordType = type
        predicate = NSPredicate(value: true)
        predicateFormat = coder.optionalObject(of: NSString.self, forKey: "predicateFormat") as String? ?? ""
        if let data = coder.optionalObject(of: NSData.self, forKey: "filters") as Data?,
           let f = JSON(parsing: data)?.objects {
            filters = .success(f)
        } else {
            let reason = coder.optionalObject(of: NSString.self,
                                              forKey: "predicateError") as String? ?? "the archived query has no readable predicate"
            filters = .failure(CKError.make(.invalidArguments, reason))
        }
        super.init()
        if let data = coder.optionalObject(of: NSData.self, forKey: "sortBy") as Data?,
           let sorts = JSON(parsing: data)?.objects, !sorts.isEmpty {
            let names = Dictionary(uniqueKeysWithValues: PredicateParser.systemFields.map { ($0.value, $0.key) })
            let plain = sorts.compactMap { s -> NSSortDescriptor? in
                guard s["relativeLocation"] == nil, let key = (s["fieldName"]?.string) ?? (s["systemFieldName"]?.string).flatMap({ names[$0] }) else { return nil }
                return NSSortDescriptor(key: key, ascending: s["ascending"]?.bool ?? true)
            }
            // Plain sorts come back as descriptors the app can change; a sort by distance is kept as it was sent.
            if plain.count == sorts.count { sortDescriptors = plain } else { savedSorts = sorts }
        }
    }

    /// The `query` dictionary of `records/query`.
    func wireQuery() throws -> WireObject {
        var q: WireObject = ["recordType": JSON(recordType)]
        let f = try filters.get()
        if !f.isEmpty { q["filterBy"] = JSON(f) }
        if let sorts = savedSorts { q["sortBy"] = JSON(sorts); return q }
        if let sorts = sortDescriptors, !sorts.isEmpty {
            q["sortBy"] = try JSON(sorts.map { d -> WireObject in
                guard let key = d.stratusKey else { throw CKError.make(.invalidArguments,
                                                                       "a sort descriptor needs a key") }
                var s: WireObject = PredicateParser.systemFields[key].map { ["systemFieldName": JSON($0)] } ?? ["fieldName": JSON(key)]
                s["ascending"] = JSON(d.ascending)
                if let loc = d as? CKLocationSortDescriptor, let (j,
                                                                  _) = RecordCoder.wire(loc.relativeLocation) { s["relativeLocation"] = j }
                return s
            })
        }
        return q
    }
}
