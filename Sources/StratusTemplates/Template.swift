/// A parsed mustache template: `{{name}}` (escaped), `{{{name}}}` (raw), `{{#name}}…{{/name}}` (sections over
/// lists, flags and objects), `{{^name}}…{{/name}}` (inverted), `{{> partial}}`, `{{! comment}}`, `{{.}}` and
/// dotted names. Templates stay logic-less; this is only the part of mustache the console uses, parsed once.
struct Template: Sendable {
    indirect enum Node: Sendable {
        /// Text as the bytes it is sent as.
        case text([UInt8])
        case variable([Key], escaped: Bool)
        case section([Key], inverted: Bool, [Node])
        case partial(String)
    }

    let nodes: [Node]

    struct SyntaxError: Error, CustomStringConvertible {
        var description: String
    }

    init(_ source: String) throws {
        var stack: [(name: String, inverted: Bool, nodes: [Node])] = [("", false, [])]
        var rest = Substring(source)
        func append(_ n: Node) { stack[stack.count - 1].nodes.append(n) }
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { append(.text(Array(rest[..<open.lowerBound].utf8))) }
            let triple = rest[open.upperBound...].hasPrefix("{")
            let closing = triple ? "}}}" : "}}"
            let bodyStart = triple ? rest.index(after: open.upperBound) : open.upperBound
            guard let close = rest[bodyStart...].range(of: closing) else { throw SyntaxError(description: "unclosed tag") }
            let tag = rest[bodyStart..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            rest = rest[close.upperBound...]
            if triple { append(.variable(Template.path(tag), escaped: false)); continue }
            guard let sigil = tag.first else { throw SyntaxError(description: "empty tag") }
            let name = tag.dropFirst().trimmingCharacters(in: .whitespaces)
            switch sigil {
            case "#", "^": stack.append((name, sigil == "^", []))
            case "/":
                guard stack.count > 1, stack.last!.name == name else { throw SyntaxError(description: "unexpected {{/\(name)}}") }
                let done = stack.removeLast()
                append(.section(Template.path(done.name), inverted: done.inverted, done.nodes))
            case ">": append(.partial(name))
            case "!": break
            case "&": append(.variable(Template.path(name), escaped: false))
            default: append(.variable(Template.path(tag), escaped: true))
            }
        }
        if !rest.isEmpty { append(.text(Array(rest.utf8))) }
        guard stack.count == 1 else { throw SyntaxError(description: "unclosed section {{#\(stack.last!.name)}}") }
        nodes = stack[0].nodes
    }

    /// One name of a dotted path, with its fingerprint for `TemplateObject`'s lookups.
    struct Key: Sendable {
        let name: String
        let print: UInt64
        init(_ name: String) { self.name = name; print = TemplateObject.fingerprint(name) }
    }

    static func path(_ name: String) -> [Key] {
        (name == "." ? ["."] : name.split(separator: ".").map(String.init)).map(Key.init)
    }
}
