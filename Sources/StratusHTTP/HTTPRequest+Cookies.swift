import Foundation

extension HTTPRequest {
    /// The value of the request's cookie `name` (the first, across its Cookie headers); nil when it has none.
    public func cookie(_ name: String) -> String? {
        for header in headers.values("cookie") {
            for part in header.split(separator: ";") {
                let kv = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if kv.count == 2 && kv[0] == name { return kv[1] }
            }
        }
        return nil
    }
}
