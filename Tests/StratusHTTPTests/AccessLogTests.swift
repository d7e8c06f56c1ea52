import Foundation
import Logging
import StratusTestSupport
import Synchronization
import Testing
@testable import StratusHTTP

/// The access log shows where requests went, never the capabilities some URLs carry (courier tokens, share GUIDs,
/// upload tickets): whoever reads a log must not be able to use what it shows.
@Suite struct AccessLogTests {
    final class Lines: Sendable {
        let paths = Mutex<[String]>([])
    }

    struct Capture: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? { get { metadata[key] } set { metadata[key] = newValue } }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            if let path = metadata?["path"] { lines.paths.withLock { $0.append("\(path)") } }
        }
    }

    @Test func capabilitiesInPathsStayOutOfTheLog() async throws {
        let lines = Lines()
        var router = Router()
        router.add(.get, "/-/webcourier/{container}/{environment}/{token}") { _ in .text("ok") }
        router.add(.get, "/share/{guid}") { _ in .text("ok") }
        router.add(.get, "/items/{name}") { _ in .text("ok") }
        let server = HTTPServer(config: HTTPServerConfig(port: 0), router: router, logger: Logger(label: "test") { _ in Capture(lines: lines) })
        try await server.start()
        for path in ["/-/webcourier/iCloud.a.b/development/s3cr3t-courier", "/share/S3CR3TGUID", "/items/visible"] {
            let c = try RawClient(port: server.port, receiveTimeout: 60)
            c.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await c.response()?.status == 200)
        }
        await server.stop()
        let logged = lines.paths.withLock { $0 }
        #expect(logged.contains("/-/webcourier/iCloud.a.b/development/{token}") && logged.contains("/share/{guid}") && logged.contains("/items/visible"), "\(logged)")
        #expect(!logged.joined().contains("s3cr3t") && !logged.joined().contains("S3CR3T"))
    }
}
