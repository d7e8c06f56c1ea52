import Foundation
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// Notifications end to end from outside Stratus's code: `Tests/e2e/notification_flows.py` runs a real
/// `stratus serve` on port 0 (and kills it with SIGKILL midway), polls the web courier as CloudKit JS does, runs the
/// sync loop, resumes an SSE stream and receives a signed webhook.
@Suite struct NotificationFlowTests {
    static let available = Prerequisites.available(Prerequisites.pythonModules(["requests"]))

    @Test(.enabled(if: available, "python3 with requests is not installed: pip install requests"))
    func courierSyncLoopStreamWebhookAndCrashFromOutside() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Notify")
        // Credentials a signed-in browser would hold: an API token and each user's web auth token.
        let (apiToken, alice, bob, aliceID) = try await Executables.offPool { () -> (String, String, String, String) in
            let store = try ServerStore(dataDirectory: data)
            try store.createContainer(container)
            let api = try store.credentials.createAPIToken(container: container, environment: .development, name: "e2e").secret
            let a = try store.accounts.createUser(container: container, email: "alice@example.com", password: "a long password")
            let b = try store.accounts.createUser(container: container, email: "bob@example.com", password: "a long password")
            return (api, try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: a.userRecordName),
                    try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: b.userRecordName), a.userRecordName)
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("e2e/notification_flows.py")
        let output: (Int32, String) = try await Executables.offPool {
            let p = ChildProcess()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", script.path]
            var env = ProcessInfo.processInfo.environment
            env["STRATUS_BIN"] = Executables.url("stratus").path
            env["STRATUS_DATA"] = data.path
            env["STRATUS_CONTAINER"] = container.rawValue
            env["STRATUS_API_TOKEN"] = apiToken
            env["STRATUS_ALICE"] = alice
            env["STRATUS_BOB"] = bob
            env["STRATUS_ALICE_ID"] = aliceID
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
