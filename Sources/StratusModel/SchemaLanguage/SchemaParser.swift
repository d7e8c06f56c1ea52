/// Reads CloudKit's schema language (`.ckdb`) into a `Schema`.
///
/// Grammar (Apple's *Integrating a Text-Based Schema into Your Workflow*):
/// `DEFINE SCHEMA { CREATE ROLE r ; | RECORD TYPE t ( item {, item} ) ; }`, where an item is a field with
/// its type and indexes or `GRANT perm {, perm} TO role`. Keywords are case-insensitive.
public struct SchemaParser {
    private var tokens: [SchemaToken]
    private var pos = 0
    /// Where each grant names its role, so an undeclared role is reported where it is used.
    private var grantSites: [(role: String, token: SchemaToken)] = []

    public static func parse(_ text: String) throws(SchemaSyntaxError) -> Schema {
        var p = SchemaParser(tokens: try SchemaLexer.tokens(text))
        return try p.schema()
    }

    private init(tokens: [SchemaToken]) { self.tokens = tokens }

    private var current: SchemaToken { tokens[pos] }
    private var next: SchemaToken { tokens[min(pos + 1, tokens.count - 1)] }

    private func fail(_ message: String, at t: SchemaToken? = nil) -> SchemaSyntaxError {
        let t = t ?? current
        return SchemaSyntaxError(line: t.line, column: t.column, message: message)
    }

    private mutating func expectKeyword(_ k: String) throws(SchemaSyntaxError) {
        guard current.isKeyword(k) else { throw fail("expected \(k), found \(current.display)") }
        pos += 1
    }

    private mutating func expectSymbol(_ c: Character) throws(SchemaSyntaxError) {
        guard current.kind == .symbol(c) else { throw fail("expected '\(c)', found \(current.display)") }
        pos += 1
    }

    private mutating func accept(_ c: Character) -> Bool {
        if current.kind == .symbol(c) { pos += 1; return true }
        return false
    }

    private static let reserved: Set<String> = ["grant", "preferred", "queryable", "sortable", "searchable"]

    /// A name: a quoted identifier, or an unquoted word that is not reserved.
    private mutating func name(_ what: String) throws(SchemaSyntaxError) -> String {
        switch current.kind {
        case .quoted(let q):
            guard !q.isEmpty else { throw fail("empty \(what) name") }
            pos += 1
            return q
        case .word(let w):
            guard !SchemaParser.reserved.contains(w.lowercased()) else {
                throw fail("'\(w)' is a reserved word: write it in double quotes to use it as a \(what) name")
            }
            guard Names.isIdentifier(w) else {
                throw fail("'\(w)' is not a valid \(what) name: names start with a letter, or are double-quoted")
            }
            pos += 1
            return w
        default:
            throw fail("expected a \(what) name, found \(current.display)")
        }
    }

    private mutating func schema() throws(SchemaSyntaxError) -> Schema {
        try expectKeyword("DEFINE")
        try expectKeyword("SCHEMA")
        var schema = Schema()
        while !current.isEnd {
            if current.isKeyword("CREATE") {
                pos += 1
                try expectKeyword("ROLE")
                let t = current
                let role = try name("role")
                guard !schema.roles.contains(role) else { throw fail("role '\(role)' is declared twice", at: t) }
                schema.roles.append(role)
                try expectSymbol(";")
            } else if current.isKeyword("RECORD") {
                pos += 1
                try expectKeyword("TYPE")
                let t = current
                let typeName = try name("record type")
                guard schema.recordType(named: typeName) == nil else { throw fail("record type '\(typeName)' is declared twice", at: t) }
                schema.recordTypes.append(try recordTypeBody(typeName))
                _ = accept(";")
            } else {
                throw fail("expected CREATE ROLE or RECORD TYPE, found \(current.display)")
            }
        }
        for site in grantSites where !SecurityRole.isBuiltIn(site.role) && !schema.roles.contains(site.role) {
            throw fail("role '\(site.role)' is not declared: add CREATE ROLE \(site.role);", at: site.token)
        }
        do { try schema.validate() } catch {
            throw SchemaSyntaxError(line: current.line, column: current.column, message: error.reason)
        }
        return schema
    }

    private mutating func recordTypeBody(_ typeName: String) throws(SchemaSyntaxError) -> RecordTypeSchema {
        var type = RecordTypeSchema(name: typeName, grants: [:])
        try expectSymbol("(")
        if accept(")") { return type }
        repeat {
            if current.isKeyword("GRANT") {
                pos += 1
                var perms: Permission = []
                repeat {
                    guard case .word(let w) = current.kind, let p = Permission(name: w) else {
                        throw fail("expected READ, CREATE or WRITE after GRANT, found \(current.display) (a field named 'grant' must be written in double quotes)")
                    }
                    perms.insert(p)
                    pos += 1
                } while current.kind == .symbol(",") && next.isPermissionWord && accept(",")
                try expectKeyword("TO")
                grantSites.append((SchemaParser.roleName(current), current))
                let role = try name("role")
                type.grants[role, default: []].formUnion(perms)
            } else {
                let t = current
                let fieldName = try name("field")
                guard type.field(named: fieldName) == nil else { throw fail("field '\(fieldName)' is declared twice in '\(typeName)'", at: t) }
                let fieldType = try dataType()
                var indexes: FieldIndexes = []
                while case .word(let w) = current.kind, let idx = FieldIndexes(name: w) {
                    indexes.insert(idx)
                    pos += 1
                }
                type.fields.append(FieldSchema(name: fieldName, type: fieldType, indexes: indexes))
            }
        } while accept(",")
        try expectSymbol(")")
        return type
    }

    private mutating func dataType() throws(SchemaSyntaxError) -> FieldType {
        if current.isKeyword("LIST") {
            pos += 1
            try expectSymbol("<")
            let inner = try dataType()
            guard !inner.isList else { throw fail("lists cannot contain lists") }
            try expectSymbol(">")
            var t = inner
            t.isList = true
            return t
        }
        if current.isKeyword("ENCRYPTED") {
            pos += 1
            var t = try dataType()
            guard !t.isList, ![.reference,
                               .asset].contains(t.scalar) else { throw fail("ENCRYPTED applies to BYTES, STRING, DOUBLE, INT64, LOCATION or TIMESTAMP") }
            t.encrypted = true
            return t
        }
        if current.isKeyword("NUMBER") {
            pos += 1
            var scalar = ScalarType.int64
            if current.isKeyword("PREFERRED") {
                pos += 1
                try expectKeyword("AS")
                if current.isKeyword("INT64") { scalar = .int64 } else if current.isKeyword("DOUBLE") { scalar = .double } else {
                    throw fail("expected INT64 or DOUBLE after PREFERRED AS, found \(current.display)")
                }
                pos += 1
            }
            return FieldType(scalar, numberPreferred: true)
        }
        guard case .word(let w) = current.kind, let scalar = ScalarType(rawValue: w.uppercased()) else {
            throw fail("expected a data type (STRING, INT64, DOUBLE, BYTES, TIMESTAMP, REFERENCE, ASSET, LOCATION, LIST<…>), found \(current.display)")
        }
        pos += 1
        return FieldType(scalar)
    }
}

extension SchemaParser {
    fileprivate static func roleName(_ t: SchemaToken) -> String {
        switch t.kind {
        case .word(let w), .quoted(let w): w
        default: ""
        }
    }
}

private extension SchemaToken {
    var isPermissionWord: Bool {
        if case .word(let w) = kind { return Permission(name: w) != nil }
        return false
    }
}
