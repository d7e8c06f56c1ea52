import Foundation
import Testing
@testable import StratusHTTP

/// No header the server writes can be split by what went into it: whatever a handler puts in a value, the answer
/// keeps the headers it meant to have and no more.
@Suite struct HeaderSafetyTests {
    @Test func aValueWithLineBreaksStaysOneHeader() {
        var r = HTTPResponse.redirect(to: "/console/x\r\nSet-Cookie: stolen=1")
        r.headers["x-note"] = "a\nb\u{0}c"
        r.headers["bad name\r\nx"] = "v"
        let head = String(decoding: r.serialized(includeBody: true, keepAlive: false).head, as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        #expect(lines.contains("location: /console/x%0D%0ASet-Cookie: stolen=1"))
        #expect(lines.contains("x-note: a%0Ab%00c"))
        #expect(!head.lowercased().contains("\r\nset-cookie") && !head.contains("bad name"))
    }
}
