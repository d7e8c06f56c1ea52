import Foundation
import StratusKit
import StratusModel
import StratusStore

/// The release `stratus serve` in its own process (so a figure's RSS is the client's) over a fresh data directory
/// with one container, its Development API token and a signed-in user: what the StratusKit scenarios run against.
final class KitBenchServer {
    let root: URL
    let process: Process
    let base: URL
    let container, apiToken, webToken: String

    init(container: String, user: String, extraArguments: [String] = []) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-kit-bench-\(UUID().uuidString)")
        let data = root.appendingPathComponent("stratus")
        do {
            let store = try ServerStore(dataDirectory: data)
            let c = try ContainerID(container)
            try store.createContainer(c)
            apiToken = try store.credentials.createAPIToken(container: c, environment: .development,
                                                            name: "bench").secret
            webToken = try store.accounts.createWebAuthToken(container: c, environment: .development,
                                                             userRecordName: user, lifetime: AccountStore.longSession)
        }
        self.container = container
        let port = UInt16(22_000 + Int.random(in: 0..<4_000))
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("stratus")
        process = Process()
        process.executableURL = bin
        process.arguments = ["serve", "--port", String(port), "--data", data.path, "--api-rate-per-user", "0",
                             "--api-rate-per-address", "0"] + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try ConsoleScenario.waitForHealth(port: port, path: "/-/health")
        base = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// A device of the signed-in user.
    func device() -> CKContainer {
        CKContainer(identifier: container, configuration: CKContainer.Configuration(serverURL: base,
                environment: .development, apiToken: apiToken,
                                                                                      credentials: .webAuthToken(webToken)))
    }

    /// The same requests without StratusKit.
    var plain: PlainClient {
        PlainClient(base: base,
                    query: "ckAPIToken=\(apiToken)&ckWebAuthToken=\(webToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", container: container)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: root)
    }
}
