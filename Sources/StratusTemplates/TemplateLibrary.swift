import Foundation
import StratusHTTP

/// The console's templates, parsed once at start-up and rendered against a stack of contexts (a name is looked
/// up from the innermost section outwards, as mustache does).
public struct TemplateLibrary: Sendable {
    private let templates: [Template]
    private let index: [String: Int]
    /// Each template's partials, as indices into `templates` (-1: no such template, drawn as nothing).
    private let partialTargets: [[Int]]

    public init(_ sources: [String: String]) throws {
        var templates: [Template] = [], index: [String: Int] = [:]
        for (name, text) in sources {
            do { templates.append(try Template(text)) } catch { throw Template.SyntaxError(description: "template \(name): \(error)") }
            index[name] = templates.count - 1
        }
        self.templates = templates
        self.index = index
        partialTargets = templates.map { t in t.partials.map { index[$0] ?? -1 } }
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

    public func has(_ name: String) -> Bool { index[name] != nil }

    public func render(_ name: String, _ root: TemplateValue) -> String? {
        renderBytes(name, root).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The page as the bytes it is sent as (UTF-8): built as bytes, since a String appended to piece by piece
    /// rechecked its storage and its ASCII-ness on every append.
    public func renderBytes(_ name: String, _ root: TemplateValue) -> [UInt8]? {
        guard let t = index[name] else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(32_768)
        var stack: [TemplateValue] = [root]
        render(t, &stack, &out, depth: 0)
        return out
    }

    /// Draws template `t`: its operations, bytes and names are read through pointers for the whole template.
    private func render(_ t: Int, _ stack: inout [TemplateValue], _ out: inout [UInt8], depth: Int) {
        guard depth < 64 else { return }
        let template = templates[t]
        template.ops.withUnsafeBufferPointer { ops in
            template.bytes.withUnsafeBufferPointer { bytes in
                template.keys.withUnsafeBufferPointer { keys in
                    let drawing = Drawing(library: self, ops: ops, bytes: bytes, keys: keys, partials: partialTargets[t])
                    drawing.run(0, ops.count, &stack, &out, depth: depth)
                }
            }
        }
    }

    /// One template being drawn.
    private struct Drawing {
        let library: TemplateLibrary
        let ops: UnsafeBufferPointer<Template.Op>
        let bytes: UnsafeBufferPointer<UInt8>
        let keys: UnsafeBufferPointer<Template.Key>
        let partials: [Int]

        /// Draws the operations `from..<to` (a section's body runs to its `end`).
        func run(_ from: Int, _ to: Int, _ stack: inout [TemplateValue], _ out: inout [UInt8], depth: Int) {
            guard depth < 64 else { return }
            var i = from
            while i < to {
                let op = ops[i]
                i += 1
                switch op.kind {
                case .text:
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(op.start)..<Int(op.start + op.count)]))
                case .escaped, .raw:
                    lookup(op, stack)?.appendText(to: &out, escaped: op.kind == .escaped)
                case .inverted:
                    if !(lookup(op, stack)?.isTruthy ?? false) { run(i, Int(op.end), &stack, &out, depth: depth + 1) }
                    i = Int(op.end)
                case .section:
                    section(lookup(op, stack), body: i, end: Int(op.end), &stack, &out, depth: depth)
                    i = Int(op.end)
                case .partial:
                    let target = partials[Int(op.start)]
                    if target >= 0 { library.render(target, &stack, &out, depth: depth + 1) }
                }
            }
        }

        private func section(_ value: TemplateValue?, body: Int, end: Int, _ stack: inout [TemplateValue],
                             _ out: inout [UInt8], depth: Int) {
            guard let value, value.isTruthy else { return }
            switch value {
            case .list(let items):
                for item in items {
                    stack.append(item)
                    run(body, end, &stack, &out, depth: depth + 1)
                    stack.removeLast()
                }
            case .object, .string:
                stack.append(value)
                run(body, end, &stack, &out, depth: depth + 1)
                stack.removeLast()
            case .bool:
                run(body, end, &stack, &out, depth: depth + 1)
            }
        }

        /// The value of the operation's name: its first key from the innermost context outwards, as mustache does,
        /// the rest of a dotted path inside what that found.
        private func lookup(_ op: Template.Op, _ stack: [TemplateValue]) -> TemplateValue? {
            // An empty name (`{{{}}}`, `{{# }}`) has no keys and names nothing.
            guard op.count > 0 else { return nil }
            let first = keys[Int(op.start)]
            if op.count == 1 && first.isDot { return stack.last }
            var level = stack.count - 1
            while level >= 0 {
                defer { level -= 1 }
                guard var v = stack[level].member(first) else { continue }
                var k = Int(op.start) + 1
                while k < Int(op.start + op.count) {
                    guard let next = v.member(keys[k]) else { return nil }
                    v = next
                    k += 1
                }
                return v
            }
            return nil
        }
    }
}
