import Foundation
import StratusModel
import StratusStore
import StratusTestSupport
import Testing

/// Examples/Notes is an app's package: it depends on this one by path, names only the StratusKit product, and is
/// written as the CloudKit guides write it. It is built here and run against `stratus serve`, configured only
/// through the STRATUS_* variables.
@Suite struct ExampleAppTests {
    static var repository: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }

    @Test func theCloudKitGuideExampleBuildsAloneAndRunsAgainstStratusServe() async throws {
        let repo = Self.repository
        let build: (Int32, String) = try await Executables.offPool {
            let p = ChildProcess()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["swift", "build", "--package-path", repo.appendingPathComponent("Examples/Notes").path,
                           "--scratch-path", repo.appendingPathComponent(".build-examples").path]
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let out = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: out, as: UTF8.self))
        }
        try #require(build.0 == 0, "\(build.1.suffix(3000))")
        // Only StratusKit and swift-crypto were built for it: no server module, no GRDB.
        let modules = try FileManager.default.contentsOfDirectory(atPath: repo.appendingPathComponent(".build-examples/debug/Modules").path)
        #expect(modules.contains("StratusKit.swiftmodule"))
        #expect(!modules.contains { $0.hasPrefix("GRDB") || $0.hasPrefix("StratusStore") || $0.hasPrefix("StratusServer") })

        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Notes")
        let (apiToken, webToken) = try await Executables.offPool { () -> (String, String) in
            let store = try RecordStore(dataDirectory: data)
            try store.createContainer(container)
            let user = try store.createUser(container: container, email: "reader@example.com", password: "a long password")
            return (try store.createAPIToken(container: container, environment: .development, name: "notes").secret,
                    try store.createWebAuthToken(container: container, environment: .development, userRecordName: user.userRecordName))
        }
        let server = try await ServeProcess(arguments: ["--data", data.path])
        defer { server.stop() }

        let run: (Int32, String) = try await Executables.offPool {
            let p = ChildProcess()
            p.executableURL = repo.appendingPathComponent(".build-examples/debug/Notes")
            p.environment = ["STRATUS_URL": server.url, "STRATUS_CONTAINER": container.rawValue, "STRATUS_ENVIRONMENT": "development",
                             "STRATUS_API_TOKEN": apiToken, "STRATUS_WEB_AUTH_TOKEN": webToken, "PATH": "/usr/bin:/bin"]
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let out = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: out, as: UTF8.self))
        }
        #expect(run.0 == 0, "\(run.1)")
        #expect(run.1.contains("all checks passed"), "\(run.1)")
        #expect(run.1.contains("ok   a stale save was refused with the server's copy"), "\(run.1)")
    }
}
