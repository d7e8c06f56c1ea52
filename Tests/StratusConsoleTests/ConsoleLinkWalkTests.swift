import Foundation
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// Every link on every console page leads somewhere: signed in on the demo data, follow each `/console` link of each
/// page reached (breadth first) and expect a page or a redirect to one, never a 404 or an error. GETs only, so the
/// walk also shows that following links changes nothing.
@Suite struct ConsoleLinkWalkTests {
    static func links(in html: String) -> [String] {
        var out: [String] = []
        var rest = html[...]
        while let r = rest.range(of: "href=\"") {
            let tail = rest[r.upperBound...]
            guard let end = tail.firstIndex(of: "\"") else { break }
            let raw = String(tail[..<end]).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#39;", with: "'")
            let link = String(raw.prefix { $0 != "#" })
            if link.hasPrefix("/console") { out.append(link) }
            rest = tail[end...]
        }
        return out
    }

    @Test func everyLinkOfEveryPageResolves() async throws {
        let f = try await ConsoleFixture { $0.demo = true }
        let s = try await ConsoleSession.signIn(f)
        var queue = ["/console/"], seen: Set<String> = ["/console/"], broken: [String] = [], from: [String: String] = [:]
        var visited = 0
        while !queue.isEmpty, visited < 600 {
            let path = queue.removeFirst()
            visited += 1
            var page = try await s.get(path)
            var hops = 0
            while page.status == 303 || page.status == 302, let next = page.headers["location"], next.hasPrefix("/console"), hops < 3 {
                page = try await s.get(next)
                hops += 1
            }
            guard page.status == 200 else {
                broken.append("\(path) → \(page.status) (linked from \(from[path] ?? "?"))")
                continue
            }
            for link in Self.links(in: page.html) where !seen.contains(link) {
                seen.insert(link)
                from[link] = path
                queue.append(link)
            }
        }
        #expect(broken.isEmpty, "links that lead nowhere: \(broken)")
        #expect(visited > 40, "the walk reached only \(visited) pages")
    }
}
