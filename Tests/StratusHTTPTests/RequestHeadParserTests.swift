import Foundation
import Testing
@testable import StratusHTTP
#if canImport(Glibc)
import Glibc
#endif

/// The parser's cost measured in this thread's CPU time, so other tests running beside it cannot blur it.
@Suite struct RequestHeadParserTests {
    static func threadCPUMillis() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }

    @Test func aHostileHeaderLineCostsLinearTime() throws {
        let big = Array("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 256 * 1024))\r\n\r\n".utf8)
        let t0 = Self.threadCPUMillis()
        // Scanned as it arrives, 4 KiB at a time, remembering how far it got.
        var scanned = 0
        var end: Int?
        var upTo = 0
        while end == nil && upTo < big.count {
            upTo = min(big.count, upTo + 4096)
            end = try RequestHeadParser.headEnd(in: Array(big[0..<upTo]), from: scanned)
            scanned = upTo
        }
        let request = try RequestHeadParser.parse(big[0..<end!], remoteAddress: "")
        let cpu = Self.threadCPUMillis() - t0
        #expect(request.headers["x-big"]?.count == 256 * 1024)
        #expect(cpu < 500, "parsing a 256 KiB header line took \(cpu) ms of CPU")
    }

    @Test func framingConflictsAreRefused() {
        var h = HTTPHeaders()
        h.add("Content-Length", "5")
        h.add("Transfer-Encoding", "chunked")
        #expect(throws: HTTPError.self) { try RequestHeadParser.framing(h) }
        var big = HTTPHeaders()
        big.add("Content-Length", "99999999999999999999")
        #expect(throws: HTTPError.self) { try RequestHeadParser.framing(big) }
        var ok = HTTPHeaders()
        ok.add("Content-Length", "12")
        #expect((try? RequestHeadParser.framing(ok)) == .length(12))
    }
}
