import Foundation
import StratusModel

/// Turns a `Query` into one SQL statement over a record type's table and its index tables: the one place, beside
/// `TypeStatements`, where the statements on those tables are written (the table layer).
///
/// Paging is keyset-based: results are ordered by the sort keys and then by the record's id, and the
/// continuation marker carries the last row's key values, so pages stay correct while records change
/// and page N costs what page 1 does (no OFFSET).
struct QueryCompiler {
    let type: CatalogType
    let environment: ContainerEnvironment
    let fields: [CatalogField]
    /// The engine the statement is for: full-text, location and ordering are spelled for it (see `SQLDialect`).
    let dialect: SQLDialect

    /// Select each record's `parent` and `share` after the sort keys (zones where some record has either).
    var links = false
    /// The ids of the zones the query reads: a filter on `parent` or `share` looks its records up in those zones'
    /// links first (`record_links_parent`, `shares_name`), not once per row.
    var zoneIDs: [Int64] = []
    /// The type's automatic composite indexes; a complete one that serves the query's shape drives the statement.
    var autoIndexes: [AutoIndex] = []
    /// The automatic index the compiled statement uses, if any.
    private(set) var usedAutoIndex: String?
    /// The used automatic index's columns: filters and sort keys on them read its index table (`a`), so that SQLite
    /// walks its B-tree in order and joins each entry to its row.
    private var autoIndexColumns: Set<String> = []

    private var conditions: [String] = []
    private var arguments: [SQLValue] = []
    /// A filter that narrows rows through an indexed column of the table itself (it needs the zone prefix).
    private var hasColumnIndexFilter = false
    /// Indexed columns an EQUALS/IN filter pins: their index, not a sort index, should drive the query.
    private var equalityColumns: Set<String> = []
    /// A filter that narrows rows to an id set from an index table (list, full-text, geo).
    private var hasIDSetFilter = false

    init(type: CatalogType, environment: ContainerEnvironment, desiredKeys: [String]?, dialect: SQLDialect = .sqlite) {
        self.dialect = dialect
        self.type = type
        self.environment = environment
        self.fields = RecordRowCodec.wantedFields(type, desiredKeys)
    }

    /// One resolved sort key: its SQL expression (with its arguments) and direction.
    struct SortKey {
        var expression: String
        var arguments: [SQLValue]
        var ascending: Bool
        /// Whether the expression can be NULL (a field; system columns never are): PostgreSQL is told where NULLs go
        /// only then, so that its plain indexes on NOT NULL columns still match the order.
        var nullable = true
    }

    mutating func compile(_ query: Query, zoneCondition: String, zoneArguments: [SQLValue],
                          after marker: [SQLValue]?) throws(StratusError) -> CompiledQuery {
        // A complete automatic index built for this shape serves the equality and the order at once: SQLite walks
        // `limit` of its entries instead of reading and sorting every match.
        let shape = QueryShape(query)
        if shape.others.isEmpty, let ai = autoIndexes.first(where: { $0.isReady && $0.serves(shape) }), let cols = AutoIndexes.columns(ai, type) {
            usedAutoIndex = ai.name
            autoIndexColumns = Set(cols + ["id"])
        }
        // With an automatic index its table's zone column leads, so that the zone is the prefix of the walk.
        conditions = [usedAutoIndex != nil && zoneCondition.hasPrefix("t.zone_id") ? "a" + zoneCondition.dropFirst() : zoneCondition]
        arguments = zoneArguments
        if environment == .production && query.filters.isEmpty && query.sorts.isEmpty
            && !type.indexes(of: .recordName).contains(.queryable) {
            throw .badRequest("record type '\(type.name)' has no QUERYABLE index on recordName (___recordID); add it in Development and deploy to query it without filters")
        }
        for filter in query.filters { try addFilter(filter) }
        // With only an id-set filter, the zone term must not steer SQLite into scanning the zone's index:
        // looking the few ids up by primary key is what makes those queries fast.
        // (PostgreSQL's planner weighs both by its statistics, and a unary + does not apply to text there.)
        if hasIDSetFilter && !hasColumnIndexFilter && dialect == .sqlite { conditions[0] = "+" + zoneCondition }
        var keys = try sortKeys(query)
        // An equality on an indexed column picks out few rows; sorting those beats walking a sort index through the
        // whole zone until enough match, which SQLite chooses when its statistics are missing or sampled
        // (`title = ? ORDER BY count` took seconds at 1M records). A unary + keeps the sort index out of it, in
        // ORDER BY and in the continuation's keyset terms alike.
        let pinned = dialect == .sqlite && usedAutoIndex == nil && !query.sorts.isEmpty && !equalityColumns.isEmpty && !(keys.first.map { equalityColumns.contains($0.expression) } ?? true)
        if pinned { keys = keys.map { k in var k = k; if k.arguments.isEmpty { k.expression = "+" + k.expression }; return k } }
        if let marker {
            guard marker.count == keys.count else { throw .badRequest("continuationMarker does not belong to this query") }
            addKeyset(keys, marker)
        }
        let extra = keys.map { $0.expression }
        var sortArgs: [SQLValue] = []
        for k in keys { sortArgs += k.arguments }
        // NULLs sort first ascending and last descending, as SQLite orders them (PostgreSQL is told so; its indexes
        // are built NULLS FIRST to match).
        let order = keys.map { k -> String in
            let nulls = dialect == .postgres && k.nullable
            return "\(k.expression) \(k.ascending ? (nulls ? "ASC NULLS FIRST" : "ASC") : (nulls ? "DESC NULLS LAST" : "DESC"))"
        }.joined(separator: ", ")
        let limit = max(1, min(query.resultsLimit, Query.maximumResults)) + 1
        let linkSelect = links ? ", l.parent, (SELECT s.record_name FROM shares s WHERE s.zone_id = t.zone_id AND s.root_name = t.record_name)" : ""
        let linkJoin = links ? " LEFT JOIN record_links l ON l.zone_id = t.zone_id AND l.record_name = t.record_name" : ""
        let from = usedAutoIndex.map { "\($0) a INDEXED BY \($0)_k CROSS JOIN \(type.table) t ON t.id = a.id" } ?? "\(type.table) t"
        let sql = """
            SELECT \(RecordRowCodec.selectList(type, fields: fields)), \(extra.joined(separator: ", "))\(linkSelect)
            FROM \(from)\(linkJoin) WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT \(limit)
            """
        // Sort expressions with arguments (distances) appear in the select list and again in ORDER BY.
        var orderArgs: [SQLValue] = []
        for k in keys { orderArgs += k.arguments }
        return CompiledQuery(sql: sql, arguments: sortArgs + arguments + orderArgs, sortKeyCount: keys.count,
                             fieldCount: fields.count)
    }

    // MARK: fields

    /// A resolved filter or sort target: its SQL column, its type and its indexes.
    private struct Target {
        var column: String
        var type: FieldType
        var indexes: FieldIndexes
        var field: CatalogField?
        var name: String
    }

    private func target(_ ref: FieldRef) throws(StratusError) -> Target {
        switch ref {
        case .field(let name):
            guard let f = type.field(named: name) else {
                throw .badRequest("record type '\(type.name)' has no field '\(name)'")
            }
            return Target(column: qualified(f.comparableColumn), type: f.type, indexes: f.schema.indexes, field: f,
                          name: name)
        case .system(let s):
            guard let column = CatalogType.column(of: s) else { throw .badRequest("system field '\(s.rawValue)' cannot be queried") }
            var indexes = type.indexes(of: s)
            if s == .recordName && environment == .development { indexes.formUnion([.queryable, .sortable]) }
            let ft = (s == .createdTimestamp || s == .modifiedTimestamp) ? FieldType(.timestamp) : FieldType(.string)
            return Target(column: qualified(column), type: ft, indexes: indexes, field: nil, name: s.rawValue)
        }
    }

    /// A column of the type's table as the statement names it: from the automatic index's table when it has it.
    private func qualified(_ column: String) -> String {
        autoIndexColumns.contains(column) ? "a.\(column)" : "t.\(column)"
    }

    private func require(_ index: FieldIndexes, on t: Target, for what: String) throws(StratusError) {
        guard environment == .production, !t.indexes.contains(index) else { return }
        let schemaName = t.field == nil ? (SystemField.allCases.first { $0.rawValue == t.name }?.schemaName ?? t.name) : t.name
        throw .badRequest("\(what) on field '\(t.name)' of record type '\(type.name)' needs a \(index.names.joined()) index on '\(schemaName)'; add it in Development and deploy")
    }

    /// The SQLite value a filter compares with, checked against the field's type.
    private func sqlValue(_ v: FieldValue, for t: Target) throws(StratusError) -> SQLValue {
        switch (v, t.type.scalar) {
        case (.string(let s), .string), (.string(let s), .reference): return .text(s)
        case (.reference(let r), .reference): return .text(r.recordName)
        case (.reference(let r), .string) where t.field == nil: return .text(r.recordName)
        case (.int64(let i), .int64): return .int64(i)
        case (.int64(let i), .double): return .double(Double(i))
        case (.double(let d), .double), (.double(let d), .int64): return .double(d)
        case (.timestamp, .timestamp), (.int64, .timestamp), (.double, .timestamp):
            // A TIMESTAMP field holds seconds since 2001; created and modified stamps hold milliseconds since 1970.
            // Numbers are milliseconds, as Web Services clients write them.
            guard let ts = Timestamp(millisecondsIn: v), ts.isValid else { throw .badRequest("filter on '\(t.name)' compares with a TIMESTAMP out of range") }
            guard t.field == nil else { return .double(ts.secondsSinceReferenceDate) }
            let ms = ts.secondsSinceReferenceDate * 1000 + Double(Timestamp.referenceDateMillis)
            return ms == ms.rounded() ? .int64(ts.millisSince1970) : .double(ms)
        case (.timestamp(let ts), .int64): return .int64(ts.millisSince1970)
        case (.bytes(let b), .bytes): return .blob(b)
        default:
            throw .badRequest("filter on '\(t.name)' (\(t.type.scalar.wireName)) cannot compare with a \(v.fieldType?.wireName ?? "list") value")
        }
    }

    private func listItems(_ v: FieldValue, for t: Target) throws(StratusError) -> [SQLValue] {
        guard case .list(_,
                         let items) = v else { throw .badRequest("filter on '\(t.name)' needs a list value (a *_LIST type)") }
        guard !items.isEmpty else { throw .badRequest("filter on '\(t.name)' needs a non-empty list value") }
        guard items.count <= 1000 else { throw .badRequest("filter on '\(t.name)' lists more than 1000 values") }
        var out: [SQLValue] = []
        for item in items { out.append(try sqlValue(item, for: t)) }
        return out
    }

    /// CloudKit's `self CONTAINS 'words'`: each word in any of the type's string fields (every token for
    /// CONTAINS_ALL_TOKENS, one for CONTAINS_ANY_TOKENS), through each field's own token search. In Production
    /// only SEARCHABLE fields take part, and there must be one.
    private mutating func addAllFieldsSearch(_ filter: QueryFilter) throws(StratusError) {
        guard case .string(let text) = filter.value else { throw .badRequest("\(filter.comparator.rawValue) on self needs a STRING value") }
        let words = QueryCompiler.tokens(text)
        guard !words.isEmpty else { throw .badRequest("\(filter.comparator.rawValue) needs at least one token") }
        let searched = type.fields.filter { $0.type.scalar == .string && !$0.type.isList && (environment == .development || $0.hasFTS) }
        guard !searched.isEmpty else {
            throw .badRequest("record type '\(type.name)' has no SEARCHABLE string field for a search of all fields; add one in Development and deploy")
        }
        // Each (word, field) test compiled alone, then combined: OR across fields, AND (or OR) across words.
        var perWord: [(String, [SQLValue])] = []
        for word in words {
            var alternatives: [String] = [], args: [SQLValue] = []
            for f in searched {
                var one = self
                one.conditions = []
                one.arguments = []
                try one.addFilter(QueryFilter(.field(f.name), .containsAllTokens, .string(word)))
                alternatives.append(one.conditions.joined(separator: " AND "))
                args += one.arguments
            }
            perWord.append(("(" + alternatives.joined(separator: " OR ") + ")", args))
        }
        hasIDSetFilter = true
        conditions.append("(" + perWord.map(\.0).joined(separator: filter.comparator == .containsAllTokens ? " AND " : " OR ") + ")")
        arguments += perWord.flatMap(\.1)
    }

    private func placeholders(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ", ") }

    // MARK: filters

    private mutating func addFilter(_ filter: QueryFilter) throws(StratusError) {
        if case .field(QueryFilter.allFields) = filter.field, type.field(named: QueryFilter.allFields) == nil,
           filter.comparator == .containsAllTokens || filter.comparator == .containsAnyTokens {
            return try addAllFieldsSearch(filter)
        }
        if case .system(let s) = filter.field, s == .parent || s == .share { return try addLinkFilter(s, filter) }
        let t = try target(filter.field)
        var comparator = filter.comparator
        if t.type.isList && comparator == .equals { comparator = .listContains }
        if t.type.isList && comparator == .notEquals { comparator = .notListContains }
        try require(comparator.requiredIndex, on: t, for: comparator.rawValue)
        if comparator.needsListField != t.type.isList && comparator != .near {
            throw .badRequest("\(comparator.rawValue) does not apply to field '\(t.name)' of type \(t.type.wireName)")
        }
        let c = t.column
        let indexedColumn = t.field.map { $0.hasBTree } ?? true
        if indexedColumn && [.equals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .in,
                             .beginsWith].contains(comparator) {
            hasColumnIndexFilter = true
            if comparator == .equals || comparator == .in { equalityColumns.insert(c) }
        }
        if [.near, .containsAllTokens, .containsAnyTokens, .listContains, .listContainsAny, .listContainsAll,
            .listMemberBeginsWith].contains(comparator) {
            hasIDSetFilter = true
        }
        switch comparator {
        case .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals:
            guard t.type.scalar != .location && t.type.scalar != .asset else {
                throw .badRequest("\(comparator.rawValue) does not apply to field '\(t.name)' of type \(t.type.wireName)")
            }
            let op = [FilterComparator.equals: "=", .notEquals: "!=", .lessThan: "<", .lessThanOrEquals: "<=",
                      .greaterThan: ">", .greaterThanOrEquals: ">="][comparator]!
            conditions.append("\(c) \(op) ?")
            arguments.append(try sqlValue(filter.value, for: t))
        case .in, .notIn:
            let items = try listItems(filter.value, for: t)
            conditions.append("\(c) \(comparator == .in ? "IN" : "NOT IN") (\(placeholders(items.count)))")
            arguments += items
        case .beginsWith, .notBeginsWith:
            try addBeginsWith(comparator, t, filter.value)
        case .containsAllTokens, .containsAnyTokens:
            try addTokenSearch(comparator, t, filter.value)
        case .near:
            guard t.type.scalar == .location, !t.type.isList, let f = t.field, case .location(let center) = filter.value else {
                throw .badRequest("NEAR needs a LOCATION field and a LOCATION value")
            }
            guard let d = filter.distance, d.isFinite, d >= 0 else { throw .badRequest("NEAR needs a non-negative distance in metres") }
            addNear(f, center: center, distance: d)
        case .listContains, .notListContains, .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll,
             .listMemberBeginsWith, .notListMemberBeginsWith:
            try addListFilter(comparator, t, filter.value)
        }
    }


    /// `parent` or `share` EQUALS, NOT_EQUALS, IN or NOT_IN a record (a reference or a record name), as libraries
    /// find a parent's children to delete them: the records are read from the links kept beside the type's table —
    /// `record_links` for a parent, `shares` for the share of a shared root — within the query's zones. In
    /// Production the schema must declare the field QUERYABLE (`___parent`, `___share`).
    private mutating func addLinkFilter(_ system: SystemField, _ filter: QueryFilter) throws(StratusError) {
        let t = Target(column: system.rawValue, type: FieldType(.reference), indexes: type.indexes(of: system),
                       field: nil, name: system.rawValue)
        try require(.queryable, on: t, for: filter.comparator.rawValue)
        let names: [SQLValue]
        switch filter.comparator {
        case .equals, .notEquals: names = [try sqlValue(filter.value, for: t)]
        case .in, .notIn: names = try listItems(filter.value, for: t)
        default: throw .badRequest("\(filter.comparator.rawValue) does not apply to '\(system.rawValue)': it takes EQUALS, NOT_EQUALS, IN or NOT_IN a record")
        }
        let zones = zoneIDs.isEmpty ? "NULL" : zoneIDs.sorted().map(String.init).joined(separator: ",")
        // In one zone a record name names one record: the names the links give are looked up in the type's
        // (zone_id, record_name) index. Across zones, the zone goes with each name.
        let oneZone = zoneIDs.count == 1
        let (zone, name, table, match) = system == .parent
            ? ("l2.zone_id", "l2.record_name", "record_links l2", "l2.parent")
            : ("s2.zone_id", "s2.root_name", "shares s2", "s2.record_name")
        let linked = "SELECT \(oneZone ? name : zone + ", " + name) FROM \(table) WHERE \(zone) IN (\(zones)) AND \(name) IS NOT NULL AND \(match) IN (\(placeholders(names.count)))"
        let negated = filter.comparator == .notEquals || filter.comparator == .notIn
        conditions.append("\(oneZone ? "t.record_name" : "(t.zone_id, t.record_name)") \(negated ? "NOT IN" : "IN") (\(linked))")
        arguments += names
        if !negated && oneZone {
            hasColumnIndexFilter = true
            equalityColumns.insert("t.record_name")
        }
    }

    /// BEGINS_WITH on a STRING: a range the column's index serves, checked exactly (the range alone would let a
    /// longer scalar through); the negation needs no index.
    private mutating func addBeginsWith(_ comparator: FilterComparator, _ t: Target,
                                        _ value: FieldValue) throws(StratusError) {
        let c = t.column
        guard t.type.scalar == .string || t.field == nil, case .string(let prefix) = value else {
            throw .badRequest("\(comparator.rawValue) needs a STRING field and a STRING value")
        }
        if comparator == .beginsWith {
            conditions.append("(\(c) >= ? AND \(c) < ? AND substr(\(c), 1, CAST(? AS INTEGER)) = ?)")
            arguments += [.text(prefix), .text(prefix + "\u{10FFFF}"), .int64(Int64(prefix.unicodeScalars.count)),
                          .text(prefix)]
        } else {
            conditions.append("(\(c) IS NOT NULL AND substr(\(c), 1, CAST(? AS INTEGER)) != ?)")
            arguments += [.int64(Int64(prefix.unicodeScalars.count)), .text(prefix)]
        }
    }

    /// CONTAINS_ALL_TOKENS / CONTAINS_ANY_TOKENS on a STRING: the field's full-text index (PostgreSQL's tsvector or
    /// SQLite's FTS5), or without a SEARCHABLE index in Development, a slower scan with the same meaning.
    private mutating func addTokenSearch(_ comparator: FilterComparator, _ t: Target,
                                         _ value: FieldValue) throws(StratusError) {
        let c = t.column
        guard t.type.scalar == .string, !t.type.isList, case .string(let text) = value else {
            throw .badRequest("\(comparator.rawValue) needs a STRING field and a STRING value")
        }
        let tokens = QueryCompiler.tokens(text)
        guard !tokens.isEmpty else { throw .badRequest("\(comparator.rawValue) needs at least one token") }
        if let f = t.field, f.hasFTS, dialect == .postgres {
            // Tokens are letters and digits only (see `tokens`), so they need no quoting in a tsquery.
            conditions.append("t.id IN (SELECT id FROM \(f.ftsTable) WHERE v @@ to_tsquery('simple', ?))")
            arguments.append(.text(tokens.joined(separator: comparator == .containsAllTokens ? " & " : " | ")))
        } else if let f = t.field, f.hasFTS {
            let match = tokens.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" }
                .joined(separator: comparator == .containsAllTokens ? " AND " : " OR ")
            conditions.append("t.id IN (SELECT rowid FROM \(f.ftsTable) WHERE \(f.ftsTable) MATCH ?)")
            arguments.append(.text(match))
        } else {
            // Development without a SEARCHABLE index: a slower scan with the same meaning.
            let parts = tokens.map { _ in "(' ' || lower(\(c)) || ' ') LIKE ? ESCAPE '\\'" }
            conditions.append("(" + parts.joined(separator: comparator == .containsAllTokens ? " AND " : " OR ") + ")")
            arguments += tokens.map { .text("%\(QueryCompiler.likeEscaped($0.lowercased()))%") }
        }
    }

    /// The list comparators, through the list field's side table of (record, element) rows.
    private mutating func addListFilter(_ comparator: FilterComparator, _ t: Target,
                                        _ value: FieldValue) throws(StratusError) {
        guard let f = t.field, f.hasListTable else {
            throw .badRequest("\(comparator.rawValue) on '\(t.name)' needs a QUERYABLE index on that list field")
        }
        let elem = Target(column: "value", type: FieldType(t.type.scalar), indexes: t.indexes, field: f, name: t.name)
        let negate = [.notListContains, .notListContainsAny, .notListContainsAll,
                      .notListMemberBeginsWith].contains(comparator)
        var sub: String
        switch comparator {
        case .listContains, .notListContains:
            sub = "SELECT record_id FROM \(f.listTable) WHERE value = ?"
            arguments.append(try sqlValue(value, for: elem))
        case .listContainsAny, .notListContainsAny:
            let items = try listItems(value, for: elem)
            sub = "SELECT record_id FROM \(f.listTable) WHERE value IN (\(placeholders(items.count)))"
            arguments += items
        case .listContainsAll, .notListContainsAll:
            let items = Array(Set(try listItems(value, for: elem)))
            sub = "SELECT record_id FROM \(f.listTable) WHERE value IN (\(placeholders(items.count))) GROUP BY record_id HAVING count(*) = \(items.count)"
            arguments += items
        default:
            guard case .string(let prefix) = value else { throw .badRequest("\(comparator.rawValue) needs a STRING value") }
            sub = "SELECT record_id FROM \(f.listTable) WHERE value >= ? AND value < ? AND substr(value, 1, CAST(? AS INTEGER)) = ?"
            arguments += [.text(prefix), .text(prefix + "\u{10FFFF}"), .int64(Int64(prefix.unicodeScalars.count)),
                          .text(prefix)]
        }
        conditions.append("t.id \(negate ? "NOT IN" : "IN") (\(sub))")
    }

    private mutating func addNear(_ f: CatalogField, center: Location, distance: Double) {
        let dLat = distance / 111_195.0
        let cosLat = cos(center.latitude * .pi / 180)
        let dLon = cosLat > 1e-6 ? min(180, distance / (111_195.0 * cosLat)) : 180
        let minLat = center.latitude - dLat, maxLat = center.latitude + dLat
        var lonRanges: [(Double, Double)] = []
        let lo = center.longitude - dLon, hi = center.longitude + dLon
        if dLon >= 180 { lonRanges = [(-180, 180)] } else if lo < -180 { lonRanges = [(lo + 360, 180), (-180,
                hi)] } else if hi > 180 {
            lonRanges = [(lo, 180), (-180, hi - 360)]
        } else { lonRanges = [(lo, hi)] }
        if f.hasGeo && dialect == .postgres {
            // The GiST index finds the points inside the bounding boxes (longitude is x); the distance check follows.
            let boxes = lonRanges.map { _ in "p <@ box(point(?, ?), point(?, ?))" }.joined(separator: " OR ")
            conditions.append("t.id IN (SELECT id FROM \(f.geoTable) WHERE \(boxes))")
            for r in lonRanges { arguments += [.double(r.0), .double(minLat), .double(r.1), .double(maxLat)] }
        } else if f.hasGeo {
            // The cell ranges that cover the boxes, each a seek in the location table (see `GeoCell`).
            let within = GeoCellTable.within(f.geoTable, boxes: lonRanges.map { (minLat, maxLat, $0.0, $0.1) })
            conditions.append("t.id IN (\(within.sql))")
            arguments += within.arguments
        } else {
            let boxes = lonRanges.map { _ in "(t.\(f.longitudeColumn) BETWEEN ? AND ?)" }.joined(separator: " OR ")
            conditions.append("(t.\(f.latitudeColumn) BETWEEN ? AND ? AND (\(boxes)))")
            arguments += [.double(minLat), .double(maxLat)]
            for r in lonRanges { arguments += [.double(r.0), .double(r.1)] }
        }
        conditions.append("stratus_distance(t.\(f.latitudeColumn), t.\(f.longitudeColumn), ?, ?) <= ?")
        arguments += [.double(center.latitude), .double(center.longitude), .double(distance)]
    }

    // MARK: sorting and keyset

    private func sortKeys(_ query: Query) throws(StratusError) -> [SortKey] {
        var keys: [SortKey] = []
        for s in query.sorts {
            let t = try target(s.field)
            if t.type.scalar == .location && !t.type.isList, let f = t.field {
                guard let p = s.relativeLocation else { throw .badRequest("sorting on LOCATION field '\(t.name)' needs a relativeLocation") }
                if environment == .production && t.indexes.isDisjoint(with: [.queryable, .sortable]) {
                    try require(.sortable, on: t, for: "sorting by distance")
                }
                keys.append(SortKey(expression: "stratus_distance(t.\(f.latitudeColumn), t.\(f.longitudeColumn), ?, ?)",
                                    arguments: [.double(p.latitude), .double(p.longitude)], ascending: s.ascending))
                continue
            }
            guard !t.type.isList, ![.asset, .bytes].contains(t.type.scalar) else {
                throw .badRequest("field '\(t.name)' of type \(t.type.wireName) cannot be sorted")
            }
            try require(.sortable, on: t, for: "sorting")
            keys.append(SortKey(expression: t.column, arguments: [], ascending: s.ascending, nullable: t.field != nil))
        }
        // Without sort keys: by name when unfiltered (the name index gives that order), by id when filtered
        // (every filter index gives rows in id order, so no sort is needed).
        if keys.isEmpty && query.filters.isEmpty { keys.append(SortKey(expression: "t.record_name", arguments: [],
                                                                       ascending: true, nullable: false)) }
        keys.append(SortKey(expression: qualified("id"), arguments: [], ascending: keys.last?.ascending ?? true,
                            nullable: false))
        return keys
    }

    /// Rows strictly after the marker's values in the sort order (NULLs sort first ascending, last descending).
    private mutating func addKeyset(_ keys: [SortKey], _ values: [SQLValue]) {
        var disjuncts: [String] = []
        var args: [SQLValue] = []
        var prefix: [String] = []
        var prefixArgs: [SQLValue] = []
        for (k, v) in zip(keys, values) {
            var after: String?
            var afterArgs: [SQLValue] = []
            if v.isNull {
                after = k.ascending ? "\(k.expression) IS NOT NULL" : nil
                afterArgs = k.ascending ? k.arguments : []
            } else {
                after = k.ascending ? "\(k.expression) > ?" : "(\(k.expression) < ? OR \(k.expression) IS NULL)"
                afterArgs = k.ascending ? k.arguments + [v] : k.arguments + [v] + k.arguments
            }
            if let after {
                disjuncts.append("(" + (prefix + [after]).joined(separator: " AND ") + ")")
                args += prefixArgs + afterArgs
            }
            if v.isNull {
                prefix.append("\(k.expression) IS NULL")
                prefixArgs += k.arguments
            } else {
                prefix.append("\(k.expression) = ?")
                prefixArgs += k.arguments + [v]
            }
        }
        // A plain range on the first key lets SQLite seek in its index instead of scanning from the start.
        if let first = keys.first, let v = values.first, !v.isNull, first.arguments.isEmpty {
            conditions.append(first.ascending ? "\(first.expression) >= ?" : "(\(first.expression) <= ? OR \(first.expression) IS NULL)")
            arguments.append(v)
        }
        conditions.append(disjuncts.isEmpty ? "1 = 0" : "(" + disjuncts.joined(separator: " OR ") + ")")
        arguments += args
    }

    static func tokens(_ text: String) -> [String] {
        text.split { !$0.isLetter && !$0.isNumber }.map(String.init).prefix(32).map { $0 }
    }

    static func likeEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%",
                with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}
