import StratusTestSupport
import Foundation
import Synchronization
import Testing
@testable import StratusHTTP

/// Bodies are not read for someone the route refuses, and the bodies all connections hold together are bounded:
/// past the bound a request is told to come back (503, Retry-After) before a byte of its body is read.
@Suite struct BodyAdmissionTests {
    final class Seen: Sendable {
        let bodies = Mutex(0)
    }

    static func server(maxBuffered: Int, perCredential: Int? = nil) async throws -> (HTTPServer, Seen) {
        let seen = Seen()
        var router = Router()
        // `/upload/good-<who>` is admitted as <who>; anything else is refused.
        router.add(.post, "/upload/{key}", bodyLimit: 1 << 20, admit: { req in
            let key = req.parameters["key"] ?? ""
            return key.hasPrefix("good") ? .admitted(credential: String(key.dropFirst(4))) : .refused(.text("refused\n", status: .forbidden))
        }) { req in
            seen.bodies.withLock { $0 += 1 }
            return .text("\(req.body.count)")
        }
        var config = HTTPServerConfig(port: 0, requestTimeout: .seconds(20))
        config.maxBufferedBodyBytes = maxBuffered
        config.maxBufferedBodyBytesPerCredential = perCredential ?? maxBuffered
        let server = HTTPServer(config: config, router: router)
        try await server.start()
        return (server, seen)
    }

    @Test func aRefusedSenderIsAnsweredBeforeItsBodyIsRead() async throws {
        let (server, seen) = try await Self.server(maxBuffered: 1 << 20)
        let c = try RawClient(port: server.port, receiveTimeout: 60)
        // The head alone, announcing 900 KB that never come: the refusal does not wait for them (waiting would end
        // in the request timeout's 408).
        c.send("POST /upload/forged HTTP/1.1\r\nHost: x\r\nContent-Length: 900000\r\n\r\n")
        let r = await c.response()
        #expect(r?.status == 403)
        #expect(seen.bodies.withLock { $0 } == 0 && server.bufferedBodyBytes == 0)
        let ok = try RawClient(port: server.port, receiveTimeout: 60)
        ok.send("POST /upload/good-1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        #expect(await ok.response().map { String(decoding: $0.body, as: UTF8.self) } == "5")
        await server.stop()
    }

    @Test func bodiesHeldAtOnceAreBoundedAndGivenBack() async throws {
        let (server, _) = try await Self.server(maxBuffered: 100_000)
        // A slow sender holds 80 KB of the budget while its body trickles in.
        let slow = try RawClient(port: server.port, receiveTimeout: 60)
        slow.send("POST /upload/good-1 HTTP/1.1\r\nHost: x\r\nContent-Length: 80000\r\n\r\n" + String(repeating: "a", count: 1000))
        for _ in 0..<3000 where server.bufferedBodyBytes == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(server.bufferedBodyBytes == 80_000)
        // Another 80 KB does not fit: 503 with a time to retry, at once.
        let second = try RawClient(port: server.port, receiveTimeout: 60)
        second.send("POST /upload/good-1 HTTP/1.1\r\nHost: x\r\nContent-Length: 80000\r\n\r\n")
        let busy = await second.response()
        #expect(busy?.status == 503 && busy?.headers["retry-after"] == "2")
        // Chunked bodies count chunk by chunk.
        let chunked = try RawClient(port: server.port, receiveTimeout: 60)
        chunked.send("POST /upload/good-1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n9C40\r\n" + String(repeating: "b", count: 40_000) + "\r\n0\r\n\r\n")
        #expect(await chunked.response()?.status == 503)
        // The slow one finishes; its bytes go back, and the next large body fits.
        slow.send(String(repeating: "a", count: 79_000))
        #expect(await slow.response().map { String(decoding: $0.body, as: UTF8.self) } == "80000")
        #expect(server.bufferedBodyBytes == 0)
        let third = try RawClient(port: server.port, receiveTimeout: 60)
        third.send("POST /upload/good-1 HTTP/1.1\r\nHost: x\r\nContent-Length: 80000\r\n\r\n" + String(repeating: "c", count: 80_000))
        #expect(await third.response()?.status == 200)
        await server.stop()
    }

    /// One credential holds at most its share of the budget: its next large body waits (503), another's is read.
    @Test func oneCredentialCannotHoldTheWholeBudget() async throws {
        let (server, _) = try await Self.server(maxBuffered: 400_000, perCredential: 100_000)
        let slow = try RawClient(port: server.port, receiveTimeout: 60)
        slow.send("POST /upload/good-alice HTTP/1.1\r\nHost: x\r\nContent-Length: 80000\r\n\r\n" + String(repeating: "a", count: 1000))
        for _ in 0..<3000 where server.bufferedBodyBytes == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let again = try RawClient(port: server.port, receiveTimeout: 60)
        again.send("POST /upload/good-alice HTTP/1.1\r\nHost: x\r\nContent-Length: 80000\r\n\r\n")
        #expect(await again.response()?.status == 503)
        let bob = try RawClient(port: server.port, receiveTimeout: 60)
        bob.send("POST /upload/good-bob HTTP/1.1\r\nHost: x\r\nContent-Length: 80000\r\n\r\n" + String(repeating: "b", count: 80_000))
        #expect(await bob.response()?.status == 200)
        slow.send(String(repeating: "a", count: 79_000))
        #expect(await slow.response()?.status == 200)
        #expect(server.bufferedBodyBytes == 0)
        await server.stop()
    }
}
