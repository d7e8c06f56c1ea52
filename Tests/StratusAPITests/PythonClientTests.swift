import Crypto
import Foundation
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore
import StratusTestSupport

/// An end-to-end check from outside the Swift code: a Python client (requests + cryptography) written from
/// CloudKit's documentation signs its own requests and drives the real server.
@Suite struct PythonClientTests {
    static let available = Prerequisites.available(Prerequisites.pythonModules(["requests", "cryptography"]))

    @Test(.enabled(if: available, "python3 with requests and cryptography is not installed: pip install requests cryptography"))
    func documentedServerToServerClientWorks() async throws {
        let f = try await APIFixture()
        let key = P256.Signing.PrivateKey()
        let registered = try f.app.store.credentials.addServerKey(container: f.container, environment: .development, publicKeyPEM: key.publicKey.pemRepresentation)
        let keyFile = f.data.appendingPathComponent("eckey.pem")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("e2e/cloudkit_s2s_client.py")

        let output: (Int32, String) = try await offPool {
            let p = ChildProcess()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", script.path]
            var env = ProcessInfo.processInfo.environment
            env["STRATUS_URL"] = f.app.url
            env["STRATUS_CONTAINER"] = f.container.rawValue
            env["STRATUS_KEY_ID"] = registered.keyID
            env["STRATUS_KEY_FILE"] = keyFile.path
            p.environment = env
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        #expect(output.0 == 0, "\(output.1)")
        #expect(output.1.contains("passed, 0 failed"), "\(output.1)")
    }
}
