import Foundation
import StratusTestSupport
import Testing

/// The colour scheme switch sends the admin back to the page they were on, read from the Referer: a crafted link's
/// Referer must neither add a header to the answer (a cookie of the attacker's) nor send the admin off the console.
@Suite struct ConsoleRedirectTests {
    static func themeSwitch(_ s: ConsoleSession, referer: String) async throws -> String {
        let c = try RawClient(port: s.f.app.port)
        let body = "csrf=\(ConsoleSession.encode(s.csrf))&theme=dark"
        c.send("POST /console/theme HTTP/1.1\r\nHost: 127.0.0.1:\(s.f.app.port)\r\nCookie: \(s.cookie)\r\nOrigin: http://127.0.0.1:\(s.f.app.port)\r\n"
               + "Referer: \(referer)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        return String(decoding: await c.all(), as: UTF8.self)
    }

    @Test func aCraftedRefererCannotAddAHeaderOrLeaveTheConsole() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let base = "http://127.0.0.1:\(f.app.port)"
        for crafted in ["/console/%0d%0aSet-Cookie:%20stolen=1", "/console/x%0aSet-Cookie:stolen=1", "/console/%0D%0ALocation:%20http://evil.example/",
                        "/console//evil.example/", "/console/../../-/admin"] {
            let answer = try await Self.themeSwitch(s, referer: base + crafted)
            let head = answer.components(separatedBy: "\r\n\r\n").first ?? ""
            let lines = head.components(separatedBy: "\r\n")
            #expect(lines.first?.hasPrefix("HTTP/1.1 303") == true, "\(crafted): \(head)")
            #expect(!lines.contains { $0.lowercased().hasPrefix("set-cookie: stolen") }, "\(crafted): \(head)")
            #expect(lines.filter { $0.lowercased().hasPrefix("location:") } == ["location: /console/"], "\(crafted): \(head)")
        }
        // A page of the console itself is where the switch goes back to.
        let page = try await Self.themeSwitch(s, referer: base + "/console/containers?done=Saved%20it")
        #expect(page.contains("location: /console/containers?done=Saved%20it\r\n"), "\(page.prefix(400))")
    }
}
