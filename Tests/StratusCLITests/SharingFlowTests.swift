import Foundation
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// Sharing end to end from outside Stratus's code: `Tests/e2e/sharing_flows.py` runs a real `stratus serve` on
/// port 0; an owner, a member and an outsider sign up through the sign-in pages and share, accept, read, write and
/// revoke through CloudKit Web Services and the share page.
@Suite struct SharingFlowTests {
    static let available = Prerequisites.available(Prerequisites.pythonModules(["requests"]))

    @Test(.enabled(if: available, "python3 with requests is not installed: pip install requests"))
    func ownerMemberAndOutsiderFromOutside() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Trips")
        // What a developer sets up: the container, and an API token whose app lives at http://app.example.
        let apiToken = try await Executables.offPool { () -> String in
            let store = try ServerStore(dataDirectory: data)
            try store.createContainer(container)
            return try store.credentials.createAPIToken(container: container, environment: .development, name: "e2e", allowedOrigins: ["http://app.example"]).secret
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("e2e/sharing_flows.py")
        let output: (Int32, String) = try await Executables.offPool {
            let p = ChildProcess()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", script.path]
            var env = ProcessInfo.processInfo.environment
            env["STRATUS_BIN"] = Executables.url("stratus").path
            env["STRATUS_DATA"] = data.path
            env["STRATUS_CONTAINER"] = container.rawValue
            env["STRATUS_API_TOKEN"] = apiToken
            p.environment = env
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let out = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: out, as: UTF8.self))
        }
        #expect(output.0 == 0, "\(output.1)")
        #expect(output.1.contains("checks passed, 0 failed"), "\(output.1)")
    }
}
