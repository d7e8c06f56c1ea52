/// A template object's names and values side by side. Objects here hold a handful to a few dozen names, most
/// of them short enough for Swift's inline small strings; comparing those in a scan is cheaper than hashing
/// every name a template looks up (hashing was a visible share of rendering).
public struct TemplateObject: Sendable, Equatable {
    private var names: [String] = []
    private var values: [TemplateValue] = []

    public init(_ d: [String: String]) {
        names.reserveCapacity(d.count)
        values.reserveCapacity(d.count)
        for (k, v) in d { names.append(k); values.append(.string(v)) }
    }

    public init(names: [String], values: [TemplateValue]) {
        self.names = names
        self.values = values
    }

    /// The object with `name` set to `value` (replaced when it is there).
    public func setting(_ name: String, _ value: TemplateValue) -> TemplateObject {
        var o = self
        if let i = o.names.lastIndex(of: name) { o.values[i] = value } else { o.names.append(name); o.values.append(value) }
        return o
    }

    /// Names and values in the order they were given (a name given twice, twice).
    public var members: Zip2Sequence<[String], [TemplateValue]> { zip(names, values) }

    /// The value of `name`; of a name given twice, the later (a page's frame over its view).
    public subscript(name: String) -> TemplateValue? {
        var i = names.count - 1
        while i >= 0 {
            if names[i] == name { return values[i] }
            i -= 1
        }
        return nil
    }
}
