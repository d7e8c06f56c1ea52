import StratusHTTP

/// The console's templates, parsed once at start-up and rendered against a stack of contexts (a name is looked
/// up from the innermost section outwards, as mustache does).
struct TemplateLibrary: Sendable {
    private let templates: [String: Template]

    init(_ sources: [String: String]) throws {
        var t: [String: Template] = [:]
        for (name, text) in sources {
            do { t[name] = try Template(text) } catch { throw Template.SyntaxError(description: "template \(name): \(error)") }
        }
        templates = t
    }

    func has(_ name: String) -> Bool { templates[name] != nil }

    func render(_ name: String, _ values: [String: Any]) -> String? {
        guard let t = templates[name] else { return nil }
        var out = ""
        out.reserveCapacity(16_384)
        var stack: [TemplateValue] = [TemplateValue(values)]
        render(t.nodes, &stack, &out, depth: 0)
        return out
    }

    private func lookup(_ path: [String], _ stack: [TemplateValue]) -> TemplateValue? {
        if path == ["."] { return stack.last }
        guard let first = path.first else { return nil }
        for context in stack.reversed() {
            guard var v = context[first] else { continue }
            for key in path.dropFirst() {
                guard let next = v[key] else { return nil }
                v = next
            }
            return v
        }
        return nil
    }

    private func render(_ nodes: [Template.Node], _ stack: inout [TemplateValue], _ out: inout String, depth: Int) {
        guard depth < 64 else { return }
        for node in nodes {
            switch node {
            case .text(let s): out += s
            case .variable(let path, let escaped):
                guard let v = lookup(path, stack) else { continue }
                out += escaped ? HTML.escape(v.text) : v.text
            case .section(let path, let inverted, let body):
                let v = lookup(path, stack)
                if inverted {
                    if !(v?.isTruthy ?? false) { render(body, &stack, &out, depth: depth + 1) }
                    continue
                }
                guard let v, v.isTruthy else { continue }
                switch v {
                case .list(let items):
                    for item in items {
                        stack.append(item)
                        render(body, &stack, &out, depth: depth + 1)
                        stack.removeLast()
                    }
                case .object, .string:
                    stack.append(v)
                    render(body, &stack, &out, depth: depth + 1)
                    stack.removeLast()
                case .bool:
                    render(body, &stack, &out, depth: depth + 1)
                }
            case .partial(let name):
                if let t = templates[name] { render(t.nodes, &stack, &out, depth: depth + 1) }
            }
        }
    }
}
