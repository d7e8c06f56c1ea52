import StratusTestSupport
import Foundation
import Synchronization
import Testing
@testable import StratusHTTP

/// The server on a real socket (port 0), spoken to by a raw client.
final class TestServer: @unchecked Sendable {
    let server: HTTPServer
    let publicDir: URL
    /// `/slow` answers once this opens (or after 20 s), so a test can hold a request in flight for as long as it needs.
    let gate = Gate()

    final class Gate: Sendable {
        private let opened = Mutex(false)
        func open() { opened.withLock { $0 = true } }
        var isOpen: Bool { opened.withLock { $0 } }
    }

    init(idleTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(60),
         configure: (inout HTTPServerConfig) -> Void = { _ in }, routes: (inout Router) -> Void = { _ in }) async throws {
        publicDir = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: publicDir.appendingPathComponent("css"), withIntermediateDirectories: true)
        try "body { color: #123; }\n".write(to: publicDir.appendingPathComponent("css/console.css"), atomically: true, encoding: .utf8)
        try "secret".write(to: publicDir.appendingPathComponent(".hidden"), atomically: true, encoding: .utf8)
        let outside = publicDir.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString).txt")
        try "outside".write(to: outside, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: publicDir.appendingPathComponent("link.txt"), withDestinationURL: outside)
        let files = StaticFiles(root: publicDir.path)
        var router = Router()
        router.add(.get, "/-/health") { _ in .json(Data("{\"status\":\"ok\"}".utf8)) }
        router.add(.post, "/echo", bodyLimit: 1024) { req in .text(String(decoding: req.body, as: UTF8.self)) }
        router.add(.get, "/big") { _ in .text(String(repeating: "stratus ", count: 4096)) }
        router.add(.get, "/items/{name}") { req in .text("item \(req.parameters["name"] ?? "")") }
        let gate = self.gate
        router.add(.get, "/slow") { _ in
            for _ in 0..<400 where !gate.isOpen { try await Task.sleep(for: .milliseconds(50)) }
            return .text("done")
        }
        router.add(.get, "/fail") { _ in throw CancellationError() }
        router.add(.get, "/-/static/*") { req in files.response(for: Array(req.pathSegments.dropFirst(2)), request: req) }
        routes(&router)
        var config = HTTPServerConfig(port: 0, requestTimeout: requestTimeout, idleTimeout: idleTimeout, drainTimeout: .seconds(3))
        configure(&config)
        server = HTTPServer(config: config, router: router)
        try await server.start()
    }

    var port: UInt16 { server.port }
    // 60 s: at the start of a full run both cores are busy for tens of seconds and the server answers late.
    func client(timeout: Double = 60, from source: String? = nil, receiveBuffer: Int32? = nil) throws -> RawClient {
        try RawClient(port: port, receiveTimeout: timeout, from: source, receiveBuffer: receiveBuffer)
    }
    func get(_ path: String, headers: String = "") async throws -> RawClient.Response? {
        let c = try client()
        c.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\(headers)\r\n")
        return await c.response()
    }

    deinit { try? FileManager.default.removeItem(at: publicDir) }
}

@Suite struct HTTPServerTests {
    @Test func servesKeepAliveAndPipelinedRequests() async throws {
        let s = try await TestServer()
        let c = try s.client()
        c.send("GET /-/health HTTP/1.1\r\nHost: x\r\n\r\nGET /items/a%2Fb HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try #require(await c.response())
        #expect(first.status == 200 && String(decoding: first.body, as: UTF8.self) == "{\"status\":\"ok\"}")
        #expect(first.headers["connection"] == "keep-alive")
        let second = try #require(await c.response())
        #expect(String(decoding: second.body, as: UTF8.self) == "item a/b")
        c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        #expect(await c.response().map { String(decoding: $0.body, as: UTF8.self) } == "hello")
        await s.server.stop()
    }

    @Test func decodesChunkedBodiesAndEnforcesTheirLimit() async throws {
        let s = try await TestServer()
        let c = try s.client()
        c.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n")
        #expect(await c.response().map { String(decoding: $0.body, as: UTF8.self) } == "hello world")
        let big = try s.client()
        big.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + String(repeating: "a", count: 2048) + "\r\n0\r\n\r\n")
        #expect(await big.response()?.status == 413)
        await s.server.stop()
    }

    @Test func refusesAHugeBodyBeforeReadingIt() async throws {
        let s = try await TestServer()
        let c = try s.client(timeout: 120)
        let start = ContinuousClock.now
        c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n")
        let r = await c.response()
        // No body byte was ever sent: the refusal came from the declared length alone (waiting for the body would
        // have ended in the request timeout's 408). Wall time on a 2-core machine while every suite starts: the
        // in-process servers of the first 40 s have waited that long for a thread (46 s once in CI).
        #expect(r?.status == 413)
        #expect(ContinuousClock.now - start < .seconds(90))
        await s.server.stop()
    }

    @Test func answers431ToA256KiBHeaderLineQuickly() async throws {
        let s = try await TestServer()
        let c = try s.client(timeout: 120)
        let start = ContinuousClock.now
        c.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 256 * 1024) + "\r\n\r\n")
        let r = await c.response()
        // 431, not the request timeout's 408.
        #expect(r?.status == 431)
        // Wall time here includes other tests' load on a 2-core machine (while every suite starts, the in-process
        // servers have waited 40 s for a thread, 46 s once in CI); the parser's own cost — quadratic would be ~50 s
        // of it — is asserted in CPU time by `RequestHeadParserTests`.
        #expect(ContinuousClock.now - start < .seconds(90))
        await s.server.stop()
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n", "GET /\r\n\r\n", "GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nNo-Colon\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n Folded: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", "GET noslash HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
    ])
    func malformedRequestsGet400(_ raw: String) async throws {
        let s = try await TestServer()
        let c = try s.client()
        c.send(raw)
        let r = await c.response()
        #expect(r?.status == 400, "\(raw.debugDescription) → \(r?.status ?? 0)")
        // The server is still up.
        #expect(try await s.get("/-/health")?.status == 200)
        await s.server.stop()
    }

    @Test func aSilentClientGets408AndIsClosed() async throws {
        let s = try await TestServer(idleTimeout: .milliseconds(300), requestTimeout: .milliseconds(500))
        let silent = try s.client(timeout: 120)
        let start = ContinuousClock.now
        let all = String(decoding: await silent.all(), as: UTF8.self)
        #expect(all.hasPrefix("HTTP/1.1 408"))
        // The server closed it, well before the client's own 120 s receive timeout. (The margin is wide on purpose:
        // a full parallel suite on 2 cores has kept the server's 300 ms timer waiting 12 s for a thread, and once
        // 45 s in a fresh-clone CI run.)
        #expect(ContinuousClock.now - start < .seconds(90))
        // A trickling client: starts a request, never finishes it.
        let slow = try s.client(timeout: 120)
        slow.send("GET /-/health HTTP/1.1\r\nHo")
        let t2 = ContinuousClock.now
        #expect(String(decoding: await slow.all(), as: UTF8.self).hasPrefix("HTTP/1.1 408"))
        #expect(ContinuousClock.now - t2 < .seconds(90))
        await s.server.stop()
    }

    /// Past the idle timeout, a connection that has been answered closes without a 408: a client reusing it for
    /// its next request at that moment would read the 408 as that request's answer (the StratusKit fetch that
    /// followed a long idle pause failed so) instead of retrying on a new connection.
    @Test func aKeptAliveConnectionIdleBetweenRequestsClosesWithoutAnAnswer() async throws {
        let s = try await TestServer(idleTimeout: .milliseconds(300), requestTimeout: .milliseconds(500))
        let c = try s.client(timeout: 300)
        c.send("GET /-/health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await c.response()?.status == 200)
        let start = ContinuousClock.now
        let rest = await c.all()
        #expect(rest.isEmpty, "the server wrote \(String(decoding: rest, as: UTF8.self)) to an idle kept-alive connection")
        // Closed by the server, before the client's own receive timeout. The margin is wider than the silent
        // client's above: in a full parallel suite on 2 cores this connection's one request once took 30 s to be
        // answered, and its close came later still.
        #expect(ContinuousClock.now - start < .seconds(240))
        await s.server.stop()
    }

    /// A handler that runs past the idle timeout keeps the watchdog from the connection while it runs; the idle
    /// timeout after it must still close the connection (the watchdog used to sleep through the handler's hour-long
    /// deadline, and the idle connection stayed open until then).
    @Test func anIdleConnectionAfterASlowAnswerStillCloses() async throws {
        let s = try await TestServer(idleTimeout: .milliseconds(300), requestTimeout: .milliseconds(500))
        let c = try s.client(timeout: 300)
        c.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Task.sleep(for: .seconds(1.5))   // the watchdog wakes while the handler runs
        s.gate.open()
        #expect(await c.response()?.status == 200)
        let start = ContinuousClock.now
        #expect(await c.all().isEmpty)
        #expect(ContinuousClock.now - start < .seconds(60), "closed after the idle timeout, not after the handler's deadline")
        await s.server.stop()
    }

    @Test func unknownPathsAndMethods() async throws {
        let s = try await TestServer()
        #expect(try await s.get("/nope")?.status == 404)
        let c = try s.client()
        c.send("DELETE /-/health HTTP/1.1\r\nHost: x\r\n\r\n")
        let r = await c.response()
        #expect(r?.status == 405 && r?.headers["allow"] == "GET")
        #expect(try await s.get("/fail")?.status == 500)
        let head = try s.client()
        head.send("HEAD /-/health HTTP/1.1\r\nHost: x\r\n\r\n")
        let h = await head.response(head: true)
        #expect(h?.status == 200 && h?.body.isEmpty == true)
        await s.server.stop()
    }

    @Test func gzipsTextWhenAccepted() async throws {
        let s = try await TestServer()
        let gz = try #require(try await s.get("/big", headers: "Accept-Encoding: gzip, br\r\n"))
        #expect(gz.headers["content-encoding"] == "gzip" && gz.body.count < 1000)
        #expect(gz.body.prefix(2) == Data([0x1f, 0x8b]))
        let plain = try #require(try await s.get("/big"))
        #expect(plain.headers["content-encoding"] == nil && plain.body.count == 8 * 4096)
        await s.server.stop()
    }

    @Test func staticFilesWithValidatorsAndNoEscape() async throws {
        let s = try await TestServer()
        let css = try #require(try await s.get("/-/static/css/console.css"))
        #expect(css.status == 200 && css.headers["content-type"]?.hasPrefix("text/css") == true)
        let etag = try #require(css.headers["etag"])
        #expect(css.headers["last-modified"] != nil && css.headers["cache-control"]?.contains("max-age") == true)
        #expect(try await s.get("/-/static/css/console.css", headers: "If-None-Match: \(etag)\r\n")?.status == 304)
        for attack in ["/-/static/%2e%2e/%2e%2e/etc/hostname", "/-/static/../../etc/hostname", "/-/static/css/..%2f..%2fetc%2fhostname",
                       "/-/static/.hidden", "/-/static/link.txt", "/-/static/css%5c..%5c..%5cetc%5chostname", "/-/static/css/console.css%00.png",
                       "/-/static/", "/-/static/css"] {
            let r = try await s.get(attack)
            #expect(r?.status == 404, "\(attack) → \(r?.status ?? 0)")
        }
        await s.server.stop()
    }

    @Test func stopLetsRequestsInFlightFinish() async throws {
        let s = try await TestServer()
        let c = try s.client()
        c.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Task.sleep(for: .milliseconds(50))
        let idle = try s.client()
        idle.send("GET /-/health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await idle.response()?.status == 200)
        // Stop while /slow is still in flight, then let it finish: it is answered, and told the connection closes.
        async let stopped: Void = s.server.stop()
        for _ in 0..<400 where !s.server.isDraining { try await Task.sleep(for: .milliseconds(25)) }
        s.gate.open()
        await stopped
        let r = await c.response()
        #expect(r?.status == 200 && r?.headers["connection"] == "close")
        // The listener is gone: a new connection is refused or gets no answer.
        let after: RawClient.Response?? = try? await s.get("/-/health")
        #expect(after == nil || after! == nil)
    }

    /// A second `stop()` (a test's teardown after the test stopped the server itself, say) must not touch the
    /// listener's descriptor again: by then the kernel may have handed its number to another file of the process,
    /// and closing it shut another server's database under it (SQLite's IOERR_LOCK, "no such table").
    @Test func stoppingTwiceLeavesTheDescriptorNumberAlone() async throws {
        var checked = false
        for _ in 0..<20 where !checked {
            let s = try await TestServer()
            let number = try #require(s.server.listenerDescriptor)
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            await s.server.stop()
            // Take the freed number for the pipe (F_DUPFD gives the lowest free number from `number` on, without
            // closing anything); another test may have taken it first, then try again.
            let mine = fcntl(ends[1], F_DUPFD, number)
            defer { close(ends[0]); close(ends[1]); if mine >= 0 { close(mine) } }
            guard mine == number else { continue }
            await s.server.stop()
            #expect(fcntl(mine, F_GETFD) != -1, "the second stop closed a descriptor it no longer owned")
            #expect(write(mine, "x", 1) == 1)
            checked = true
        }
        #expect(checked)
    }
}
