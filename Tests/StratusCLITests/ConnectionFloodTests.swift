import Foundation
import Testing
import StratusTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A stranger who opens more connections than the server has descriptors does not stop it: the real server, with a
/// descriptor limit of 512 it cannot raise, under 1,500 idle connections from another address, answers `/-/health`
/// from this one, and is still running when they close (it trapped in libdispatch when it ran out of descriptors).
@Suite struct ConnectionFloodTests {
    @Test func aServerOutOfDescriptorsKeepsAnswering() async throws {
        let serve = try await ServeProcess(arguments: ["--ephemeral"], descriptorLimit: 512)
        defer { serve.stop() }
        let port = try #require(UInt16(serve.url.split(separator: ":").last?.filter(\.isNumber) ?? ""))
        var flood: [RawClient] = []
        for _ in 0..<1_500 {
            guard let c = try? RawClient(port: port, receiveTimeout: 30, from: "127.0.0.2") else { continue }
            flood.append(c)
        }
        try await Task.sleep(for: .milliseconds(500))
        for attempt in 0..<5 {
            let health = try RawClient(port: port, receiveTimeout: 30)
            health.send("GET /-/health HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = await health.response()
            #expect(answer?.status == 200, "attempt \(attempt): \(answer?.status ?? 0)")
        }
        let metrics = try RawClient(port: port, receiveTimeout: 30)
        metrics.send("GET /-/metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let text = String(decoding: await metrics.response()?.body ?? Data(), as: UTF8.self)
        let limit = text.split(separator: "\n").first { $0.hasPrefix("stratus_connection_limit{scope=\"total\"}") }.flatMap { Int($0.split(separator: " ").last ?? "") }
        #expect(limit == 512 - 256, "the limit keeps a reserve of descriptors: \(limit ?? -1)")
        flood.removeAll()
        try await Task.sleep(for: .milliseconds(500))
        #expect(serve.process.isRunning)
        let after = try RawClient(port: port, receiveTimeout: 30)
        after.send("GET /-/health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await after.response()?.status == 200)
    }
}
