/// What a template sees: strings, flags, lists and objects. Pages build `[String: Any]`; it is converted once
/// per render, so lookups during rendering need no dynamic casts (those dominated page time with a generic
/// mustache renderer).
indirect enum TemplateValue {
    case string(String)
    case bool(Bool)
    case list([TemplateValue])
    case object([String: TemplateValue])

    init(_ any: Any) {
        switch any {
        case let s as String: self = .string(s)
        case let b as Bool: self = .bool(b)
        case let i as Int: self = .string(String(i))
        case let i as Int64: self = .string(String(i))
        case let d as Double: self = .string(String(d))
        case let d as [String: Any]: self = .object(d.mapValues(TemplateValue.init))
        case let a as [Any]: self = .list(a.map(TemplateValue.init))
        case let v as TemplateValue: self = v
        default: self = .string(String(describing: any))
        }
    }

    /// Sections render for true, a non-empty string or list, and any object.
    var isTruthy: Bool {
        switch self {
        case .string(let s): !s.isEmpty
        case .bool(let b): b
        case .list(let l): !l.isEmpty
        case .object: true
        }
    }

    var text: String {
        switch self {
        case .string(let s): s
        case .bool(let b): b ? "true" : ""
        case .list(let l): "\(l.count)"
        case .object: ""
        }
    }

    subscript(key: String) -> TemplateValue? {
        if case .object(let d) = self { return d[key] }
        return nil
    }
}
