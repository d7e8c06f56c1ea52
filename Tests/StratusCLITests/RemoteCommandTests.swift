import Foundation
import Testing
import StratusModel
import StratusServer
import StratusStore

/// `stratus remote schema-import|deploy`: CI changes a running server through the admin API with a scoped token,
/// which does exactly what its role may: a developer's imports Development's schema and cannot deploy; an admin's
/// deploys.
@Suite struct RemoteCommandTests {
    @Test func aScopedTokenDoesWhatItsRoleMayFromTheCommandLine() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        var config = ServerConfig(port: 0, dataDirectory: data)
        config.durability = .relaxed
        let app = try await StratusApplication.open(config: config)
        try await app.start()
        defer { Task { await app.stop() } }
        let container = try ContainerID("iCloud.com.example.Remote")
        try app.store.createContainer(container)
        let files = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: files) }
        func tokenFile(_ role: AdminRole) throws -> String {
            let secret = try app.store.admins.createToken(name: role.rawValue, container: container, role: role,
                                                          expiresAt: nil, by: "test").secret
            let file = files.appendingPathComponent(role.rawValue)
            try (secret + "\n").write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }
        let schema = files.appendingPathComponent("schema.ckdb")
        try "DEFINE SCHEMA\n    RECORD TYPE Note (\n        \"___recordID\" REFERENCE QUERYABLE,\n        title STRING\n    );\n"
            .write(to: schema, atomically: true, encoding: .utf8)
        let target = ["--url", app.url, "--container", container.rawValue]
        let developer = try tokenFile(.developer), admin = try tokenFile(.admin)

        let imported = try await Executables.run("stratus", ["remote", "schema-import", "--token-file", developer, "--file", schema.path] + target)
        #expect(imported.status == 0 && imported.stdout.contains("Note"), "[\(imported.stdout)][\(imported.stderr)]")
        let refused = try await Executables.run("stratus", ["remote", "deploy", "--token-file", developer] + target)
        #expect(refused.status == 1 && refused.stderr.contains("needs the admin role") && refused.stderr.contains("HTTP 403"), "\(refused.stderr)")
        #expect(try app.store.environment(container, .production).schema.current().recordTypes.isEmpty)
        let deployed = try await Executables.run("stratus", ["remote", "deploy", "--token-file", admin] + target)
        #expect(deployed.status == 0, "\(deployed.stderr)")
        #expect(try app.store.environment(container, .production).schema.current().recordTypes.map(\.name).contains("Note"))
    }
}
