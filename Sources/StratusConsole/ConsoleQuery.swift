import Foundation
import StratusModel

/// The records page's query, as it lives in the URL:
/// `type=T&zone=Z&filter=FIELD+COMPARATOR+VALUE&sort=FIELD&sort=-FIELD&fields=a,b&continue=MARKER`.
/// A filter's value is typed by its field: lists of values (IN, LIST_CONTAINS_ANY, …) are comma-separated,
/// NEAR takes `latitude,longitude,metres`. System fields go by their schema names (`___createTime`, …).
package struct ConsoleQuery {
    var recordType: String?
    var zone: String = ZoneID.defaultZoneName
    var filters: [String] = []
    var sorts: [String] = []
    var fields: [String] = []
    var continuation: String?

    package init(_ items: [(name: String, value: String)]) {
        // The form sends filters as three inputs per row; they are folded into `filter=` here.
        var rowFields: [String] = [], rowOps: [String] = [], rowValues: [String] = []
        var sortFields: [String] = [], sortOrders: [String] = []
        for (n, v) in items {
            switch n {
            case "type": if !v.isEmpty { recordType = v }
            case "zone": if !v.isEmpty { zone = v }
            case "filter": if !v.trimmingCharacters(in: .whitespaces).isEmpty { filters.append(v) }
            case "sort": if !v.isEmpty { sorts.append(v) }
            case "fields": fields += v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            case "field": fields.append(v)
            case "continue": if !v.isEmpty { continuation = v }
            case "f": rowFields.append(v)
            case "op": rowOps.append(v)
            case "v": rowValues.append(v)
            case "s": sortFields.append(v)
            case "order": sortOrders.append(v)
            default: break
            }
        }
        for (i, f) in rowFields.enumerated() where !f.isEmpty {
            filters.append("\(f) \(i < rowOps.count ? rowOps[i] : "EQUALS") \(i < rowValues.count ? rowValues[i] : "")")
        }
        for (i, f) in sortFields.enumerated() where !f.isEmpty {
            sorts.append((i < sortOrders.count && sortOrders[i] == "desc" ? "-" : "") + f)
        }
    }

    /// Whether the URL came from the form's rows (and should be redirected to its canonical form).
    static func hasFormRows(_ items: [(name: String, value: String)]) -> Bool {
        items.contains { ["f", "op", "v", "s", "order", "field"].contains($0.name) }
    }

    /// The canonical query string, without the continuation unless asked.
    func queryItems(continuation: String? = nil) -> [(String, String?)] {
        var items: [(String, String?)] = [("type", recordType), ("zone", zone == ZoneID.defaultZoneName ? nil : zone)]
        items += filters.map { ("filter", $0) }
        items += sorts.map { ("sort", $0) }
        if !fields.isEmpty { items.append(("fields", fields.joined(separator: ","))) }
        if let continuation { items.append(("continue", continuation)) }
        return items
    }

    /// The store's query; the record type must exist.
    package func query(_ type: RecordTypeSchema, limit: Int = Query.maximumResults) throws(StratusError) -> Query {
        var q = Query(recordType: type.name, zoneID: ZoneID(zoneName: zone), resultsLimit: limit,
                      continuationMarker: continuation,
                      desiredKeys: fields.isEmpty ? nil : fields)
        for f in filters { q.filters.append(try ConsoleQuery.filter(f, type)) }
        for s in sorts {
            let desc = s.hasPrefix("-")
            let name = desc ? String(s.dropFirst()) : s
            q.sorts.append(QuerySort(try ConsoleQuery.ref(name, type), ascending: !desc))
        }
        return q
    }

    static func ref(_ name: String, _ type: RecordTypeSchema) throws(StratusError) -> FieldRef {
        if let sys = SystemField(schemaName: name) { return .system(sys) }
        guard type.field(named: name) != nil else { throw .badRequest("\(type.name) has no field '\(name.prefix(60))'") }
        return .field(name)
    }

    static func fieldType(_ ref: FieldRef, _ type: RecordTypeSchema) -> FieldType {
        switch ref {
        case .system(let s): s.fieldType
        case .field(let n): type.field(named: n)?.type ?? FieldType(.string)
        }
    }

    static func filter(_ text: String, _ type: RecordTypeSchema) throws(StratusError) -> QueryFilter {
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let comparator = FilterComparator(rawValue: parts[1].uppercased()) else {
            throw .badRequest("a filter is written FIELD COMPARATOR VALUE, e.g. 'title EQUALS Hello'; '\(text.prefix(80))' is not")
        }
        let ref = try ref(parts[0], type)
        let ft = fieldType(ref, type)
        let raw = parts.count > 2 ? parts[2] : ""
        let name = ref.displayName
        if comparator == .near {
            let n = raw.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard n.count == 3, let lat = n[0], let lon = n[1], let d = n[2] else {
                throw .badRequest("NEAR on \(name) takes latitude,longitude,metres")
            }
            return QueryFilter(ref, .near, .location(Location(latitude: lat, longitude: lon)), distance: d)
        }
        func one(_ s: String) throws(StratusError) -> FieldValue {
            if ft.scalar == .reference || ft.scalar == .asset || ft.scalar == .location {
                return .reference(Reference(recordName: s.trimmingCharacters(in: .whitespaces)))
            }
            return try RecordForm.scalar(s, ft.scalar, field: name, deleteSelf: false)
        }
        if comparator.takesListValue {
            var items: [FieldValue] = []
            for s in raw.split(separator: ",") { items.append(try one(String(s))) }
            return QueryFilter(ref, comparator, .list(ft.scalar, items))
        }
        return QueryFilter(ref, comparator, try one(raw))
    }

    /// The comparators offered for a field's type.
    static func comparators(for t: FieldType) -> [FilterComparator] {
        if t.isList {
            var c: [FilterComparator] = [.listContains, .notListContains, .listContainsAny, .notListContainsAny,
                                         .listContainsAll, .notListContainsAll]
            if t.scalar == .string { c += [.listMemberBeginsWith, .notListMemberBeginsWith] }
            return c
        }
        switch t.scalar {
        case .string: return [.equals, .notEquals, .beginsWith, .notBeginsWith, .lessThan, .lessThanOrEquals,
                              .greaterThan, .greaterThanOrEquals,
                              .in, .notIn, .containsAllTokens, .containsAnyTokens]
        case .int64, .double, .timestamp: return [.equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan,
                                                  .greaterThanOrEquals, .in, .notIn]
        case .reference: return [.equals, .notEquals, .in, .notIn]
        case .location: return [.near]
        case .bytes, .asset: return []
        }
    }
}
