/// Writes a `Schema` in CloudKit's schema language. `SchemaParser.parse(print(s))` gives back `s`.
public enum SchemaPrinter {
    private static let quoteWords: Set<String> = [
        "grant", "preferred", "queryable", "sortable", "searchable", "define", "schema", "create", "role", "record",
        "type", "list", "encrypted", "number", "as", "to", "read", "write",
    ]

    static func quoted(_ name: String) -> String {
        if name.hasPrefix("_") || quoteWords.contains(name.lowercased()) || !Names.isIdentifier(name) { return "\"\(name)\"" }
        return name
    }

    public static func print(_ schema: Schema) -> String {
        var out = "DEFINE SCHEMA\n"
        if !schema.roles.isEmpty { out += "\n" }
        for role in schema.roles { out += "    CREATE ROLE \(quoted(role));\n" }
        for type in schema.recordTypes {
            out += "\n    RECORD TYPE \(quoted(type.name)) (\n"
            var items: [String] = []
            let width = type.fields.map { quoted($0.name).count }.max() ?? 0
            for f in type.fields {
                let n = quoted(f.name)
                var line = n + String(repeating: " ", count: max(1, width - n.count + 1)) + f.type.description
                for idx in f.indexes.names { line += " " + idx }
                items.append(line)
            }
            for role in orderedRoles(type.grants.keys) {
                guard let p = type.grants[role], !p.isEmpty else { continue }
                items.append("GRANT \(p.names.joined(separator: ", ")) TO \(quoted(role))")
            }
            out += items.map { "        " + $0 }.joined(separator: ",\n")
            out += items.isEmpty ? "    );\n" : "\n    );\n"
        }
        return out
    }

    /// Built-in roles first in CloudKit's export order, then custom roles by name.
    static func orderedRoles<S: Sequence>(_ roles: S) -> [String] where S.Element == String {
        let order = [SecurityRole.creator, SecurityRole.authenticated, SecurityRole.world]
        return roles.sorted { a, b in
            let ia = order.firstIndex(of: a) ?? order.count, ib = order.firstIndex(of: b) ?? order.count
            return ia != ib ? ia < ib : a < b
        }
    }
}
