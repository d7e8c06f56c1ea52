import StratusHTTP

/// What a template sees: strings, flags, lists and objects. Pages build typed views that `TemplateEncoder` turns
/// into this once per render, so lookups during rendering need no dynamic casts (those dominated page time with a
/// generic mustache renderer).
public enum TemplateValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case list([TemplateValue])
    case object(TemplateObject)

    /// Sections render for true, a non-empty string or list, and any object.
    public var isTruthy: Bool {
        switch self {
        case .string(let s): !s.isEmpty
        case .bool(let b): b
        case .list(let l): !l.isEmpty
        case .object: true
        }
    }

    public var text: String {
        switch self {
        case .string(let s): s
        case .bool(let b): b ? "true" : ""
        case .list(let l): "\(l.count)"
        case .object: ""
        }
    }

    public subscript(key: String) -> TemplateValue? {
        if case .object(let d) = self { return d[key] }
        return nil
    }
}

/// A value already in template form kept as it is in a view (TemplateEncoder takes it whole); encoded by any
/// other encoder as the JSON it stands for.
extension TemplateValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let s): var c = encoder.singleValueContainer(); try c.encode(s)
        case .bool(let b): var c = encoder.singleValueContainer(); try c.encode(b)
        case .list(let l): var c = encoder.unkeyedContainer(); for v in l { try c.encode(v) }
        case .object(let o):
            var c = encoder.container(keyedBy: AnyKey.self)
            // A name given twice is the later value, as a template sees it.
            var seen = Set<String>()
            for (name, value) in o.members.reversed() where seen.insert(name).inserted {
                try c.encode(value, forKey: AnyKey(stringValue: name))
            }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension TemplateValue {
    /// The value of `key` when this is an object that has it; looked into where it is, not copied out first.
    @inline(__always) func member(_ key: Template.Key) -> TemplateValue? {
        guard case .object(let o) = self else { return nil }
        return o[key.name, key.print]
    }

    /// Appends what `{{name}}` (`escaped`) or `{{{name}}}` shows of this value: `text`, without making it.
    func appendText(to out: inout [UInt8], escaped: Bool) {
        switch self {
        case .string(let s): if escaped { HTML.appendEscaped(s, to: &out) } else { out.append(contentsOf: s.utf8) }
        case .bool(let b): if b { out.append(contentsOf: "true".utf8) }
        case .list(let l): out.append(contentsOf: String(l.count).utf8)
        case .object: break
        }
    }
}
