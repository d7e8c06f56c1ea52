/// A parsed mustache template: `{{name}}` (escaped), `{{{name}}}` (raw), `{{#name}}…{{/name}}` (sections over
/// lists, flags and objects), `{{^name}}…{{/name}}` (inverted), `{{> partial}}`, `{{! comment}}`, `{{.}}` and
/// dotted names. Templates stay logic-less; this is only the part of mustache the console uses, parsed once.
///
/// Parsed into one flat list of plain operations over one byte buffer and one list of names: a section is its
/// operation and the operations up to its `end`. Rendering walks them by index and touches no reference-counted
/// value of the template's own (a tree of nodes took a retain and a release per node and per payload, drawn
/// thousands of times a page).
struct Template: Sendable {
    struct Op: Sendable {
        enum Kind: UInt8, Sendable { case text, escaped, raw, section, inverted, partial }
        let kind: Kind
        /// `text`: where its bytes start in `bytes`; a name's: its first key in `keys`; `partial`: its index in
        /// `partials`.
        let start: Int32
        /// `text`: its byte count; a name's: how many keys its dotted path has.
        let count: Int32
        /// `section` and `inverted`: the index of the first operation after the body.
        var end: Int32
    }

    /// One name of a dotted path, with its fingerprint for `TemplateObject`'s lookups.
    struct Key: Sendable {
        let name: String
        let print: UInt64
        init(_ name: String) { self.name = name; print = TemplateObject.fingerprint(name) }
        /// `{{.}}`: the current context itself.
        var isDot: Bool { name == "." }
    }

    let ops: [Op]
    let bytes: [UInt8]
    let keys: [Key]
    /// The templates its `{{> name}}` tags name, in the order of their `partial` operations' `start`.
    let partials: [String]

    struct SyntaxError: Error, CustomStringConvertible {
        var description: String
    }

    init(_ source: String) throws {
        var ops: [Op] = [], bytes: [UInt8] = [], keys: [Key] = [], partials: [String] = []
        // The sections open, innermost last: their names and where their operations are.
        var open: [(name: String, op: Int)] = []
        func text(_ s: Substring) {
            ops.append(Op(kind: .text, start: Int32(bytes.count), count: Int32(s.utf8.count), end: 0))
            bytes.append(contentsOf: s.utf8)
        }
        func named(_ kind: Op.Kind, _ name: String) {
            let path = Template.path(name)
            ops.append(Op(kind: kind, start: Int32(keys.count), count: Int32(path.count), end: 0))
            keys.append(contentsOf: path)
        }
        var rest = Substring(source)
        while let tagOpen = rest.range(of: "{{") {
            if tagOpen.lowerBound > rest.startIndex { text(rest[..<tagOpen.lowerBound]) }
            let triple = rest[tagOpen.upperBound...].hasPrefix("{")
            let closing = triple ? "}}}" : "}}"
            let bodyStart = triple ? rest.index(after: tagOpen.upperBound) : tagOpen.upperBound
            guard let close = rest[bodyStart...].range(of: closing) else { throw SyntaxError(description: "unclosed tag") }
            let tag = rest[bodyStart..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            rest = rest[close.upperBound...]
            if triple { named(.raw, tag); continue }
            guard let sigil = tag.first else { throw SyntaxError(description: "empty tag") }
            let name = tag.dropFirst().trimmingCharacters(in: .whitespaces)
            switch sigil {
            case "#", "^":
                open.append((name, ops.count))
                named(sigil == "^" ? .inverted : .section, name)
            case "/":
                guard let last = open.last, last.name == name else { throw SyntaxError(description: "unexpected {{/\(name)}}") }
                open.removeLast()
                ops[last.op].end = Int32(ops.count)
            case ">":
                ops.append(Op(kind: .partial, start: Int32(partials.count), count: 0, end: 0))
                partials.append(name)
            case "!": break
            case "&": named(.raw, name)
            default: named(.escaped, tag)
            }
        }
        if !rest.isEmpty { text(rest) }
        if let unclosed = open.last { throw SyntaxError(description: "unclosed section {{#\(unclosed.name)}}") }
        (self.ops, self.bytes, self.keys, self.partials) = (ops, bytes, keys, partials)
    }

    static func path(_ name: String) -> [Key] {
        (name == "." ? ["."] : name.split(separator: ".").map(String.init)).map(Key.init)
    }
}
