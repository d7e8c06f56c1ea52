import Foundation
import StratusTestSupport
import Synchronization
import Testing
@testable import StratusHTTP

/// Bodies and answers are timed by their progress, not by a total: a large upload over a slow line finishes, a
/// client trickling bytes or never reading is let go, and a large answer holds neither memory nor a thread meanwhile.
@Suite struct PacedTransferTests {
    static func server() async throws -> TestServer {
        // 40 KB per 5 s at least: the steady upload below sends eight times that, the trickle a few bytes. The window
        // is wide enough that a test machine too busy to wake the sender for a few seconds does not fail it.
        try await TestServer(requestTimeout: .seconds(1), configure: { c in
            c.bodyMinimumRate = 8 * 1024
            c.bodyRateWindow = .seconds(5)
        }, routes: { r in
            r.add(.post, "/upload", bodyLimit: 8 << 20) { req in .text("\(req.body.count)") }
            r.add(.get, "/page") { req in
                // 8 MB written in pieces to the request's spool, as a page of large records is.
                let spool = AnswerSpool(budget: req.answers, credential: "page")
                let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 256 * 1024)
                for _ in 0..<32 { try spool.append(piece) }
                var response = HTTPResponse.text("")
                response.spool = spool
                return response
            }
        })
    }

    /// 256 KB at 64 KB a second takes four times the request timeout, and arrives whole.
    @Test func aSlowButSteadyUploadFinishes() async throws {
        let s = try await Self.server()
        let c = try s.client(timeout: 60)
        let size = 256 * 1024
        c.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n")
        let piece = Data(repeating: 7, count: 16 * 1024)
        for _ in 0..<(size / piece.count) {
            c.send(piece)
            try await Task.sleep(for: .milliseconds(250))
        }
        let r = await c.response()
        #expect(r?.status == 200 && r.map { String(decoding: $0.body, as: UTF8.self) } == "\(size)")
        await s.server.stop()
    }

    /// A body that trickles (a byte every 200 ms) is cut off within a window or two of its head.
    @Test func aTricklingBodyIsCutOff() async throws {
        let s = try await Self.server()
        let c = try s.client(timeout: 60)
        c.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        let trickle = Task {
            for _ in 0..<300 {
                guard c.send(Data([1])) else { return }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        let r = await c.response()
        trickle.cancel()
        #expect(r?.status == 408)
        await s.server.stop()
    }

    /// An 8 MB answer keeps at most its first megabyte in memory; a client that stops reading is let go, and the
    /// answer's spool given back. A client that reads gets every byte.
    @Test func aClientThatStopsReadingIsLetGoAndItsAnswerFreed() async throws {
        let s = try await Self.server()
        let stalled = try s.client(timeout: 120, receiveBuffer: 4096)
        stalled.send("GET /page HTTP/1.1\r\nHost: x\r\n\r\n")
        var peak = (memory: 0, spooled: 0)
        for _ in 0..<20 {
            let f = s.server.answers.figures
            peak = (max(peak.memory, f.memory), max(peak.spooled, f.spooled))
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(peak.memory <= 1 << 20 && peak.spooled >= 6 << 20, "\(peak)")
        // Let go within a few windows of five seconds each (generous for a loaded machine).
        var freed = false
        for _ in 0..<600 where !freed {
            try await Task.sleep(for: .milliseconds(100))
            freed = s.server.openConnections == 0 && s.server.answers.figures.spooled == 0 && s.server.answers.figures.memory == 0
        }
        #expect(freed)
        let reader = try s.client(timeout: 60)
        reader.send("GET /page HTTP/1.1\r\nHost: x\r\n\r\n")
        let whole = await reader.response()
        #expect(whole?.status == 200 && whole?.body.count == 8 << 20 && whole?.body.allSatisfy { $0 == UInt8(ascii: "x") } == true)
        await s.server.stop()
    }
}
