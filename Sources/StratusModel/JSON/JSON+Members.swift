import Foundation

/// Typed members of a request object. Absent or null is nil (the default applies); present with the wrong JSON
/// type is BAD_REQUEST naming the member, never silently ignored or defaulted (`"atomic": "yes"` is not false).
extension JSON {
    private func member(_ key: String) -> JSON? {
        guard let v = self[key], !v.isNull else { return nil }
        return v
    }

    private static func wrong(_ key: String, _ what: String) -> StratusError { .badRequest("'\(key)' must be \(what)") }

    public func string(_ key: String) throws(StratusError) -> String? {
        guard let v = member(key) else { return nil }
        guard let s = v.string else { throw Self.wrong(key, "a string") }
        return s
    }

    public func bool(_ key: String) throws(StratusError) -> Bool? {
        guard let v = member(key) else { return nil }
        guard let b = v.bool else { throw Self.wrong(key, "true or false") }
        return b
    }

    public func array(_ key: String) throws(StratusError) -> [JSON]? {
        guard let v = member(key) else { return nil }
        guard let a = v.array else { throw Self.wrong(key, "an array") }
        return a
    }

    public func object(_ key: String) throws(StratusError) -> [String: JSON]? {
        guard let v = member(key) else { return nil }
        guard let o = v.object else { throw Self.wrong(key, "an object") }
        return o
    }

    public func double(_ key: String) throws(StratusError) -> Double? {
        guard let v = member(key) else { return nil }
        guard case .string = v else {
            guard let d = v.double else { throw Self.wrong(key, "a number") }
            return d
        }
        throw Self.wrong(key, "a number")
    }

    /// The body as an object: a request body that is JSON but not an object is BAD_REQUEST.
    public func requestObject() throws(StratusError) -> JSON {
        guard object != nil else { throw .badRequest("the request body must be a JSON object") }
        return self
    }
}
