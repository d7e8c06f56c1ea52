import Foundation
import StratusHTTP

/// The console's templates, parsed once at start-up and rendered against a stack of contexts (a name is looked
/// up from the innermost section outwards, as mustache does).
public struct TemplateLibrary: Sendable {
    private let templates: [String: Template]

    public init(_ sources: [String: String]) throws {
        var t: [String: Template] = [:]
        for (name, text) in sources {
            do { t[name] = try Template(text) } catch { throw Template.SyntaxError(description: "template \(name): \(error)") }
        }
        templates = t
    }

    /// Every `*.mustache` file of `directory`, named without its extension.
    public init(directory: URL) throws {
        var sources: [String: String] = [:]
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files where file.hasSuffix(".mustache") {
            sources[String(file.dropLast(".mustache".count))] = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
        }
        try self.init(sources)
    }

    public func has(_ name: String) -> Bool { templates[name] != nil }

    public func render(_ name: String, _ root: TemplateValue) -> String? {
        renderBytes(name, root).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The page as the bytes it is sent as (UTF-8): built as bytes, since a String appended to piece by piece
    /// rechecked its storage and its ASCII-ness on every append.
    public func renderBytes(_ name: String, _ root: TemplateValue) -> [UInt8]? {
        guard let t = templates[name] else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(32_768)
        var stack: [TemplateValue] = [root]
        render(t.nodes, &stack, &out, depth: 0)
        return out
    }

    private func lookup(_ path: [Template.Key], _ stack: [TemplateValue]) -> TemplateValue? {
        guard let first = path.first else { return nil }
        if path.count == 1 && first.name == "." { return stack.last }
        // By index, so each context is looked into in place rather than copied out of the stack.
        var level = stack.count - 1
        while level >= 0 {
            defer { level -= 1 }
            guard case .object(let d) = stack[level], var v = d[first.name, first.print] else { continue }
            for key in path.dropFirst() {
                guard case .object(let o) = v, let next = o[key.name, key.print] else { return nil }
                v = next
            }
            return v
        }
        return nil
    }

    private func render(_ nodes: [Template.Node], _ stack: inout [TemplateValue], _ out: inout [UInt8], depth: Int) {
        guard depth < 64 else { return }
        for node in nodes {
            switch node {
            case .text(let s): out.append(contentsOf: s)
            case .variable(let path, let escaped):
                guard let v = lookup(path, stack) else { continue }
                if escaped { HTML.appendEscaped(v.text, to: &out) } else { out.append(contentsOf: v.text.utf8) }
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
