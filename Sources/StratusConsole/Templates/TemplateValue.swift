/// What a template sees: strings, flags, lists and objects. Pages build `[String: Any]`; it is converted once
/// per render, so lookups during rendering need no dynamic casts (those dominated page time with a generic
/// mustache renderer).
indirect enum TemplateValue: Sendable {
    case string(String)
    case bool(Bool)
    case list([TemplateValue])
    case object(TemplateObject)

    init(_ any: Any) {
        // Exact type checks first: a failed `as?` walks the runtime's whole casting machinery, and trying
        // String, Bool, … in turn on every dictionary was most of this conversion's time.
        let t = type(of: any)
        if t == String.self { self = .string(any as! String); return }
        if t == TemplateValue.self { self = any as! TemplateValue; return }
        if t == [String: Any].self { self = .object(TemplateObject(any as! [String: Any])); return }
        if t == [[String: Any]].self { self = .list((any as! [[String: Any]]).map { .object(TemplateObject($0)) }); return }
        if t == Bool.self { self = .bool(any as! Bool); return }
        if t == [String: String].self { self = .object(TemplateObject(any as! [String: String])); return }
        if t == [[String: String]].self { self = .list((any as! [[String: String]]).map { .object(TemplateObject($0)) }); return }
        if t == [String].self { self = .list((any as! [String]).map { .string($0) }); return }
        if t == Int.self { self = .string(String(any as! Int)); return }
        switch any {
        case let s as String: self = .string(s)
        case let b as Bool: self = .bool(b)
        case let i as Int: self = .string(String(i))
        case let i as Int64: self = .string(String(i))
        case let d as Double: self = .string(String(d))
        case let d as [String: Any]: self = .object(TemplateObject(d))
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
