import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusModel
import StratusServer
import StratusStore

/// The real application on port 0, spoken to by a real HTTP client.
@Suite struct ServeTests {
    @Test func servesHealthStaticFilesAndTheDemo() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let publicDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Public")
        let app = try StratusApplication(config: ServerConfig(port: 0, dataDirectory: data, publicDirectory: publicDir, demo: true))
        try await app.start()
        defer { Task { await app.stop() } }

        let session = URLSession(configuration: .ephemeral)
        let (body, response) = try await session.data(from: URL(string: app.url + "-/health")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "{\"status\":\"ok\"}")
        let (css, cssResponse) = try await session.data(from: URL(string: app.url + "-/static/console.css")!)
        #expect((cssResponse as? HTTPURLResponse)?.statusCode == 200 && css.count > 100)

        // The demo is there, and installing it again leaves it alone.
        let notes = try app.store.environment(DemoData.container, .development).query(Query(recordType: "Note", resultsLimit: 5), in: .publicDatabase)
        #expect(notes.records.count == 5)
        try DemoData.install(into: app.store)
        #expect(try app.store.containers().map(\.id) == [DemoData.container])
    }
}
