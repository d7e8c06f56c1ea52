/// What matching and logging need of a route's pattern, worked out once. A request is compared on the literal
/// segments by position and the segment count before anything is captured, so the many routes it does not take cost
/// it no allocation (every CloudKit operation is its own route); the one it takes fills its captures by position,
/// with names read out of the pattern once. A class: the router reads one per candidate route of every request, and
/// a value of four arrays and strings was copied (retained and released) each time.
final class RouteShape: Sendable {
    let literals: [(Int, String)]
    let captures: [(Int, String)]
    /// Whether the pattern ends with `*` (the rest of the path).
    let rest: Bool
    /// The pattern's segments, `*` included.
    let count: Int
    let capturesCapability: Bool
    /// The pattern as a path (`/database/1/{container}/…`).
    let path: String

    init(_ pattern: [String]) {
        rest = pattern.last == "*"
        count = pattern.count
        path = "/" + pattern.joined(separator: "/")
        var literals: [(Int, String)] = [], captures: [(Int, String)] = [], capability = false
        for (i, p) in pattern.enumerated() where p != "*" {
            if p.hasPrefix("{") && p.hasSuffix("}") {
                let name = String(p.dropFirst().dropLast())
                captures.append((i, name))
                if Route.capabilityParameters.contains(name) { capability = true }
            } else {
                literals.append((i, p))
            }
        }
        self.literals = literals
        self.captures = captures
        capturesCapability = capability
    }

    /// Whether a path of `segments` segments can be this pattern's.
    func fits(segmentCount n: Int) -> Bool { rest ? n >= count - 1 : n == count }

    /// The captures of `segments` (`*` and `*segments` for the rest), or nil when the path is not this pattern's.
    func match(_ segments: [String]) -> [String: String]? {
        guard fits(segmentCount: segments.count) else { return nil }
        for (i, literal) in literals where segments[i] != literal { return nil }
        var params: [String: String] = Dictionary(minimumCapacity: captures.count + (rest ? 2 : 0))
        for (i, name) in captures {
            guard i < segments.count, !segments[i].isEmpty else { return nil }
            params[name] = segments[i]
        }
        if rest {
            let i = count - 1
            params["*"] = segments.dropFirst(i).joined(separator: "/")
            params["*segments"] = String(segments.count - i)
        }
        return params
    }
}
