import Foundation
import StratusJSON

/// Reads the predicate format strings CloudKit accepts and turns them into CloudKit Web Services filters
/// (`filterBy`). Foundation on Linux cannot parse `NSPredicate(format:)`, so this is StratusKit's own reader of
/// CloudKit's subset: comparisons (`==`, `=`, `!=`, `<>`, `<`, `<=`, `>`, `>=`), `BEGINSWITH`, `IN` and `NOT … IN`,
/// `CONTAINS` on list fields, `ANY list IN %@`, `self CONTAINS 'tokens'`, `distanceToLocation:fromLocation:(key, %@) <
/// km`,
/// `AND`/`&&`, `NOT`, parentheses, `TRUEPREDICATE`, and arguments (`%@`, `%K`, and printf's `%d %i %ld %lld %u %lu %f
/// %lf %g %s`). Anything else (OR, key-to-key
/// comparisons, unsupported operators) is refused with `.invalidArguments`, as CloudKit refuses it.
struct PredicateParser {
    enum Token: Equatable {
        case word(String)          // identifiers and keywords (case kept; keywords compared uppercased)
        case string(String)
        case number(String)
        case op(String)            // == != < <= > >= ( ) , { }
        case argument              // %@
        case keyArgument           // %K
        case end
    }

    private var tokens: [Token] = []
    private var index = 0
    private var arguments: [any CKRecordValueProtocol]
    private var argumentIndex = 0

    static let systemFields: [String: String] = [
        "recordID": "recordName", "creationDate": "createdTimestamp", "modificationDate": "modifiedTimestamp",
        "creatorUserRecordID": "createdUserRecordName", "lastModifiedUserRecordID": "modifiedUserRecordName",
        "parent": "parent", "share": "share",
    ]

    /// The filters for `format`, or CloudKit's error for what it does not support.
    static func filters(_ format: String, _ arguments: [any CKRecordValueProtocol]) -> Result<[WireObject], CKError> {
        do {
            var p = PredicateParser(arguments: arguments)
            p.tokens = try tokenize(format)
            let filters = try p.conjunction()
            guard p.peek == .end else { throw p.refuse("unexpected \(p.describe(p.peek))") }
            guard p.argumentIndex == arguments.count else { throw p.refuse("\(arguments.count) arguments given for \(p.argumentIndex) placeholders") }
            return .success(filters)
        } catch let e as CKError {
            return .failure(e)
        } catch {
            return .failure(CKError.make(.invalidArguments, "\(error)"))
        }
    }

    private init(arguments: [any CKRecordValueProtocol]) { self.arguments = arguments }

    // MARK: Grammar

    private var peek: Token { index < tokens.count ? tokens[index] : .end }
    private mutating func next() -> Token { defer { index += 1 }; return peek }
    private func isWord(_ t: Token,
                        _ w: String) -> Bool { if case .word(let s) = t { return s.uppercased() == w }; return false }

    private mutating func conjunction() throws -> [WireObject] {
        var filters = try term()
        while isWord(peek, "AND") || peek == .op("&&") {
            _ = next()
            filters += try term()
        }
        if isWord(peek,
                  "OR") || peek == .op("||") { throw refuse("OR is not supported by CloudKit queries: run one query per alternative") }
        return filters
    }

    private mutating func term() throws -> [WireObject] {
        if peek == .op("(") {
            _ = next()
            let f = try conjunction()
            guard next() == .op(")") else { throw refuse("a '(' is not closed") }
            return f
        }
        if isWord(peek, "TRUEPREDICATE") { _ = next(); return [] }
        if isWord(peek, "FALSEPREDICATE") { throw refuse("FALSEPREDICATE matches nothing and is not supported") }
        if isWord(peek, "NOT") || peek == .op("!") {
            _ = next()
            let inner = try term()
            guard inner.count == 1, let c = inner[0]["comparator"]?.string, let negated = Self.negations[c] else {
                throw refuse("NOT applies only to one IN, BEGINSWITH or CONTAINS comparison")
            }
            var f = inner[0]
            f["comparator"] = JSON(negated)
            return [f]
        }
        return [try comparison()]
    }

    static let negations = ["IN": "NOT_IN", "BEGINS_WITH": "NOT_BEGINS_WITH", "LIST_CONTAINS": "NOT_LIST_CONTAINS",
                            "LIST_CONTAINS_ANY": "NOT_LIST_CONTAINS_ANY", "EQUALS": "NOT_EQUALS", "NOT_EQUALS": "EQUALS",
                            "LIST_CONTAINS_ALL": "NOT_LIST_CONTAINS_ALL", "LIST_MEMBER_BEGINS_WITH": "NOT_LIST_MEMBER_BEGINS_WITH"]

    private mutating func comparison() throws -> WireObject {
        // distanceToLocation:fromLocation:(key, %@) < radius-in-kilometres
        if case .word(let w) = peek, w == "distanceToLocation:fromLocation:" {
            _ = next()
            guard next() == .op("(") else { throw refuse("distanceToLocation:fromLocation: needs (key, location)") }
            let key = try keyName()
            guard next() == .op(",") else { throw refuse("distanceToLocation:fromLocation: needs (key, location)") }
            let (location, type) = try value()
            guard type == "LOCATION" else { throw refuse("distanceToLocation:fromLocation: compares with a location") }
            guard next() == .op(")") else { throw refuse("distanceToLocation:fromLocation: needs (key, location)") }
            let op = next()
            guard op == .op("<") || op == .op("<=") else { throw refuse("a distance is compared with < or <=") }
            let (radius, rtype) = try value()
            guard rtype == "INT64" || rtype == "DOUBLE", let km = radius.number else {
                throw refuse("a distance is compared with a number of kilometres")
            }
            var f = field(key)
            f["comparator"] = "NEAR"
            f["fieldValue"] = ["value": location, "type": "LOCATION"]
            f["distance"] = JSON(km * 1000)
            return f
        }
        var any = false
        if isWord(peek, "ANY") { _ = next(); any = true }
        if isWord(peek, "SELF") {
            _ = next()
            guard isWord(next(), "CONTAINS") else { throw refuse("self is only used as 'self CONTAINS \"words\"'") }
            let (v, t) = try value()
            guard t == "STRING" else { throw refuse("self CONTAINS takes a string of words") }
            return ["comparator": "CONTAINS_ALL_TOKENS", "fieldName": "self", "fieldValue": ["value": v,
                    "type": "STRING"]]
        }
        let key = try keyName()
        let opToken = next()
        var (v, t) = try value()
        _ = v
        var comparator: String
        switch opToken {
        case .op("=="), .op("="): comparator = "EQUALS"
        case .op("!="), .op("<>"): comparator = "NOT_EQUALS"
        case .op("<"): comparator = "LESS_THAN"
        case .op("<="), .op("=<"): comparator = "LESS_THAN_OR_EQUALS"
        case .op(">"): comparator = "GREATER_THAN"
        case .op(">="), .op("=>"): comparator = "GREATER_THAN_OR_EQUALS"
        case .word(let w) where w.uppercased() == "BEGINSWITH": comparator = "BEGINS_WITH"
        case .word(let w) where w.uppercased() == "IN":
            guard t.hasSuffix("_LIST") || t.isEmpty else { throw refuse("IN needs a list on its right") }
            comparator = any ? "LIST_CONTAINS_ANY" : "IN"
            if t.isEmpty { t = "STRING_LIST" }
        case .word(let w) where w.uppercased() == "CONTAINS":
            comparator = "LIST_CONTAINS"
        default: throw refuse("unsupported operator \(describe(opToken))")
        }
        if any && comparator != "LIST_CONTAINS_ANY" { throw refuse("ANY is only used as 'ANY listKey IN %@'") }
        if comparator == "BEGINS_WITH" && t != "STRING" { throw refuse("BEGINSWITH takes a string") }
        var f = field(key)
        f["comparator"] = JSON(comparator)
        f["fieldValue"] = t.isEmpty ? ["value": v] : ["value": v, "type": JSON(t)]
        return f
    }

    private func field(_ key: String) -> WireObject {
        if let sys = Self.systemFields[key] { return ["systemFieldName": JSON(sys)] }
        return ["fieldName": JSON(key)]
    }

    private mutating func keyName() throws -> String {
        switch next() {
        case .word(let w) where !["AND", "OR", "NOT", "IN"].contains(w.uppercased()): return w
        case .keyArgument:
            guard let s = try argument() as? String else { throw refuse("%K takes a key name (a String)") }
            return s
        case let t: throw refuse("expected a key, found \(describe(t))")
        }
    }

    private mutating func argument() throws -> any CKRecordValueProtocol {
        guard argumentIndex < arguments.count else { throw refuse("more placeholders than arguments") }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    /// A literal, `%@` argument or `{…}` list, as wire JSON and type.
    private mutating func value() throws -> (JSON, String) {
        switch next() {
        case .string(let s): return (.string(s), "STRING")
        case .number(let n):
            if let i = Int64(n) { return (.int(i), "INT64") }
            guard let d = Double(n) else { throw refuse("'\(n)' is not a number") }
            return (.double(d), "DOUBLE")
        case .word(let w) where ["TRUE", "YES"].contains(w.uppercased()): return (1, "INT64")
        case .word(let w) where ["FALSE", "NO"].contains(w.uppercased()): return (0, "INT64")
        case .argument:
            let a = try argument()
            if let id = a as? CKRecord.Reference, id.action == .none {
                guard let (j, t) = RecordCoder.wire(id) else { throw refuse("argument cannot be sent") }
                return (j, t)
            }
            guard let (j,
                       t) = RecordCoder.wire(CKRecord.normalized(a)) else { throw refuse("an argument of type \(type(of: a)) cannot be compared") }
            return (j, t)
        case .op("{"):
            var items: [JSON] = []
            var type = ""
            while peek != .op("}") {
                let (j, t) = try value()
                items.append(j)
                type = type.isEmpty ? t : type
                if peek == .op(",") { _ = next() } else if peek != .op("}") { throw refuse("a list is written {a, b, c}") }
            }
            _ = next()
            return (.array(items), type.isEmpty ? "" : type + "_LIST")
        case let t: throw refuse("expected a value, found \(describe(t))")
        }
    }

    private func refuse(_ why: String) -> CKError {
        CKError.make(.invalidArguments, "unsupported predicate: \(why)")
    }

    private func describe(_ t: Token) -> String {
        switch t {
        case .word(let w): "'\(w)'"
        case .string(let s): "\"\(s)\""
        case .number(let n): n
        case .op(let o): "'\(o)'"
        case .argument: "%@"
        case .keyArgument: "%K"
        case .end: "the end"
        }
    }

    // MARK: Tokens

    static func tokenize(_ s: String) throws -> [Token] {
        var out: [Token] = []
        let c = Array(s.unicodeScalars)
        var i = 0
        func isIdent(_ u: Unicode.Scalar) -> Bool { CharacterSet.alphanumerics.contains(u) || u == "_" || u == "." || u == ":" || u == "$" }
        while i < c.count {
            let u = c[i]
            if CharacterSet.whitespacesAndNewlines.contains(u) { i += 1; continue }
            if u == "%" {
                guard i + 1 < c.count else { throw CKError.make(.invalidArguments, "unsupported predicate: a lone %") }
                // NSPredicate's specifiers: %@ %K, and printf's numbers and strings with their length modifiers
                // (%d %i %ld %lld %u %lu %f %lf %g %s …): each takes the next argument as it is.
                var j = i + 1
                while j < c.count, "lhqLzjt".unicodeScalars.contains(c[j]) { j += 1 }
                guard j < c.count else { throw CKError.make(.invalidArguments, "unsupported predicate: a lone %") }
                switch c[j] {
                case "@": out.append(.argument)
                case "K": out.append(.keyArgument)
                case "d", "i", "u", "f", "g", "e", "F", "G", "E", "s", "S", "c", "x", "X", "o": out.append(.argument)
                default: throw CKError.make(.invalidArguments,
                                            "unsupported predicate: the placeholder %\(c[j]) is not one NSPredicate takes")
                }
                i = j + 1
                continue
            }
            if u == "\"" || u == "'" {
                var j = i + 1, text = String.UnicodeScalarView()
                while j < c.count, c[j] != u {
                    if c[j] == "\\", j + 1 < c.count { j += 1 }
                    text.append(c[j])
                    j += 1
                }
                guard j < c.count else { throw CKError.make(.invalidArguments,
                                                            "unsupported predicate: a string is not closed") }
                out.append(.string(String(text)))
                i = j + 1
                continue
            }
            if CharacterSet.decimalDigits.contains(u) || (u == "-" && i + 1 < c.count && CharacterSet.decimalDigits.contains(c[i + 1])) {
                var j = i + 1
                while j < c.count, CharacterSet.decimalDigits.contains(c[j]) || c[j] == "." || c[j] == "e" || c[j] == "E" { j += 1 }
                out.append(.number(String(String.UnicodeScalarView(c[i..<j]))))
                i = j
                continue
            }
            if isIdent(u) {
                var j = i
                while j < c.count, isIdent(c[j]) { j += 1 }
                out.append(.word(String(String.UnicodeScalarView(c[i..<j]))))
                i = j
                continue
            }
            let two = i + 1 < c.count ? String(String.UnicodeScalarView([u, c[i + 1]])) : ""
            if ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&",
                "||"].contains(two) { out.append(.op(two)); i += 2; continue }
            if "=<>(),{}!".unicodeScalars.contains(u) { out.append(.op(String(u))); i += 1; continue }
            throw CKError.make(.invalidArguments, "unsupported predicate: unexpected '\(u)'")
        }
        return out
    }
}
