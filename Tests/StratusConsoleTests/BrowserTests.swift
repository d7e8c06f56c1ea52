import Foundation
import Testing
import StratusHTTP
import StratusTestSupport

/// The console's main flows in a real browser: headless Chromium driven over WebDriver by
/// `Tests/e2e/browser_flows.py`, which saves a screenshot per step under `test-artifacts/screenshots/`.
/// `.ci/run` installs Chromium and chromedriver and sets STRATUS_REQUIRE_BROWSER=1; elsewhere the test is
/// skipped when they are missing.
@Suite struct BrowserTests {
    static let driver = ProcessInfo.processInfo.environment["CHROMEDRIVER"] ?? "/usr/bin/chromedriver"
    static let available = Prerequisites.available(FileManager.default.isExecutableFile(atPath: driver) && Prerequisites.pythonModules(["requests"]))

    @Test(.enabled(if: available, "chromium, chromium-driver (apt-get install chromium chromium-driver) or python3's requests are not installed"))
    func mainFlowsInHeadlessChromium() async throws {
        let f = try await ConsoleFixture()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("Tests/e2e/browser_flows.py")
        let shots = root.appendingPathComponent("test-artifacts/screenshots")
        let setup = try #require(f.app.console.setupPath)
        let output: (Int32, String) = try await BlockingWork.shared.run {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", script.path]
            var env = ProcessInfo.processInfo.environment
            env["STRATUS_URL"] = f.app.url
            env["STRATUS_SETUP"] = setup
            env["STRATUS_SCREENSHOTS"] = shots.path
            env["CHROMEDRIVER"] = BrowserTests.driver
            p.environment = env
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        #expect(output.0 == 0 && output.1.contains("browser flows: passed"), "\(output.1)")
        #expect(FileManager.default.fileExists(atPath: shots.appendingPathComponent("10-reset.png").path))
    }
}
