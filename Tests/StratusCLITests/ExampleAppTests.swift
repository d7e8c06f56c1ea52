import Foundation
import StratusModel
import StratusStore
import StratusTestSupport
import Testing

/// Examples/Notes is an app's package: it depends on this one by path, names only the StratusKit product, and is
/// written as the CloudKit guides write it. It is built here and run against `stratus serve`, configured only
/// through the STRATUS_* variables.
@Suite(.serialized) struct ExampleAppTests {
    static var repository: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }

    /// Builds Examples/Notes on its own (StratusKit by path); its executable.
    static func buildExample() async throws -> URL {
        let repo = Self.repository
        let build = try await Executables.runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "build", "--package-path", repo.appendingPathComponent("Examples/Notes").path,
                           "--scratch-path", repo.appendingPathComponent(".build-examples").path])
        try #require(build.0 == 0, "\(build.1.suffix(3000))")
        return repo.appendingPathComponent(".build-examples/debug/Notes")
    }

    @Test func theCloudKitGuideExampleBuildsAloneAndRunsAgainstStratusServe() async throws {
        let repo = Self.repository
        let notes = try await Self.buildExample()
        // Only StratusKit and swift-crypto were built for it: no server module, no GRDB.
        let modules = try FileManager.default.contentsOfDirectory(atPath: repo.appendingPathComponent(".build-examples/debug/Modules").path)
        #expect(modules.contains("StratusKit.swiftmodule"))
        #expect(!modules.contains { $0.hasPrefix("GRDB") || $0.hasPrefix("StratusStore") || $0.hasPrefix("StratusServer") })

        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Notes")
        let (apiToken, webToken) = try await Executables.offPool { () -> (String, String) in
            let store = try ServerStore(dataDirectory: data)
            try store.createContainer(container)
            let user = try store.accounts.createUser(container: container, email: "reader@example.com", password: "a long password")
            return (try store.credentials.createAPIToken(container: container, environment: .development, name: "notes").secret,
                    try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: user.userRecordName))
        }
        let server = try await ServeProcess(arguments: ["--data", data.path])
        defer { server.stop() }

        let run = try await Executables.runProgram(notes, environment: ["STRATUS_URL": server.url, "STRATUS_CONTAINER": container.rawValue, "STRATUS_ENVIRONMENT": "development",
                             "STRATUS_API_TOKEN": apiToken, "STRATUS_WEB_AUTH_TOKEN": webToken, "PATH": "/usr/bin:/bin"])
        #expect(run.0 == 0, "\(run.1)")
        #expect(run.1.contains("all checks passed"), "\(run.1)")
        #expect(run.1.contains("ok   a stale save was refused with the server's copy"), "\(run.1)")
    }

    /// Examples/ci/test-against-stratus.sh, as a CI job runs it: the app's tests (here the Notes example) against a
    /// throw-away server, passing when the declared schema covers what they did and failing the schema check when not.
    @Test func theCIScriptRunsAnAppsTestsAndChecksTheSchema() async throws {
        let notes = try await Self.buildExample()
        let dir = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func run(schema: String) async throws -> (Int32, String) {
            let file = dir.appendingPathComponent("app-\(UUID().uuidString).ckdb")
            try schema.write(to: file, atomically: true, encoding: .utf8)
            var env = ProcessInfo.processInfo.environment
            env["STRATUS"] = Executables.url("stratus").path
            env["STRATUS_CONTAINER"] = "iCloud.com.example.Notes"
            env["SCHEMA"] = file.path
            env["APP_TESTS"] = notes.path
            env["RUNS"] = "2"
            return try await Executables.runProgram(Self.repository.appendingPathComponent("Examples/ci/test-against-stratus.sh"), environment: env)
        }
        let declared = """
            DEFINE SCHEMA
                RECORD TYPE Note ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE SORTABLE, pinned INT64, stars INT64 QUERYABLE SORTABLE);
            """
        let passing = try await run(schema: declared)
        #expect(passing.0 == 0, "\(passing.1)")
        #expect(passing.1.components(separatedBy: "all checks passed").count == 3, "both runs pass from the snapshot: \(passing.1)")
        let unsorted = try await run(schema: declared.replacingOccurrences(of: "stars INT64 QUERYABLE SORTABLE", with: "stars INT64 QUERYABLE"))
        #expect(unsorted.0 == 3, "\(unsorted.1)")
        #expect(unsorted.1.contains("schema check: queries of Note use stars"), "\(unsorted.1)")
    }

    /// notes-sync, the example's offline-first notes app: two caches are two devices; a note added offline travels,
    /// and a note both edit is merged on both.
    @Test func notesSyncTravelsBetweenTwoDevicesAndMergesAConflict() async throws {
        _ = try await Self.buildExample()
        let tool = Self.repository.appendingPathComponent(".build-examples/debug/notes-sync")
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.NotesSync")
        let (api, web) = try await Executables.offPool { () -> (String, String) in
            let store = try ServerStore(dataDirectory: data)
            try store.createContainer(container)
            let u = try store.accounts.createUser(container: container, email: "sync@example.com", password: "a long password")
            return (try store.credentials.createAPIToken(container: container, environment: .development, name: "n").secret,
                    try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: u.userRecordName))
        }
        let server = try await ServeProcess(arguments: ["--data", data.path])
        defer { server.stop() }
        let env = ["STRATUS_URL": server.url, "STRATUS_CONTAINER": container.rawValue, "STRATUS_ENVIRONMENT": "development",
                   "STRATUS_API_TOKEN": api, "STRATUS_WEB_AUTH_TOKEN": web, "PATH": "/usr/bin:/bin"]
        let a = data.appendingPathComponent("a.json").path, b = data.appendingPathComponent("b.json").path
        func run(_ args: [String]) async throws -> String {
            try await Executables.runProgram(tool, args, environment: env).output
        }
        let id = try await run(["--cache", a, "add", "buy", "milk"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.hasPrefix("note-"))
        _ = try await run(["--cache", a, "sync"])
        #expect(try await run(["--cache", b, "sync"]).contains("\(id)\tbuy milk"))
        _ = try await run(["--cache", a, "edit", id, "milk and eggs"])
        _ = try await run(["--cache", b, "edit", id, "oat milk"])
        _ = try await run(["--cache", a, "sync"])
        let merged = try await run(["--cache", b, "sync"])
        #expect(merged.contains("merged") && merged.contains("\(id)\tmilk and eggs | oat milk"), "\(merged)")
        #expect(try await run(["--cache", a, "sync"]).contains("\(id)\tmilk and eggs | oat milk"))
    }

    /// A device killed (SIGKILL) while its sync is sending: the next run resumes from the state it persisted, and
    /// every note is on the server exactly once.
    @Test func aDeviceKilledMidSendResumesAndLosesNothing() async throws {
        _ = try await Self.buildExample()
        let tool = Self.repository.appendingPathComponent(".build-examples/debug/notes-sync")
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Killed")
        let (api, web, user) = try await Executables.offPool { () -> (String, String, String) in
            let store = try ServerStore(dataDirectory: data)
            try store.createContainer(container)
            let u = try store.accounts.createUser(container: container, email: "k@example.com", password: "a long password")
            return (try store.credentials.createAPIToken(container: container, environment: .development, name: "n").secret,
                    try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: u.userRecordName), u.userRecordName)
        }
        let server = try await ServeProcess(arguments: ["--data", data.path])
        defer { server.stop() }
        let env = ["STRATUS_URL": server.url, "STRATUS_CONTAINER": container.rawValue, "STRATUS_ENVIRONMENT": "development",
                   "STRATUS_API_TOKEN": api, "STRATUS_WEB_AUTH_TOKEN": web, "PATH": "/usr/bin:/bin"]
        let cache = data.appendingPathComponent("device.json").path
        for i in 0..<20 { _ = try await Executables.runProgram(tool, ["--cache", cache, "add", "note", "\(i)"], environment: env) }
        // The server answers the next batch slowly; the device is killed while it waits.
        try await Executables.offPool {
            let store = try ServerStore(dataDirectory: data)
            let now = WallClock.nowMillis()
            try store.faults.addFault(Fault(container: container, environment: .development, operation: "records/modify", kind: .none, remaining: 1,
                                     probability: nil, latencyMilliseconds: 5_000, createdAt: now, expiresAt: now + 600_000))
        }
        try await Task.sleep(for: .milliseconds(400))   // the server's fault cache
        try await Executables.offPool {
            let p = ChildProcess()
            p.executableURL = tool
            p.arguments = ["--cache", cache, "sync"]
            p.environment = env
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            // Killed once its batch reached the server (the slow answer is then 5 s away): mid-send.
            let store = try ServerStore(dataDirectory: data)
            let deadline = Date().addingTimeInterval(60)
            while (try store.faults.all(container: container).first?.injected ?? 0) == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        let fired = try await Executables.offPool { try ServerStore(dataDirectory: data).faults.all(container: container).first?.injected }
        #expect(fired == 1, "the device was killed while its batch was at the server")
        // The next run sends what is still pending (and settles what landed unanswered).
        _ = try await Executables.runProgram(tool, ["--cache", cache, "sync"], environment: env)
        let listed = try await Executables.runProgram(tool, ["--cache", cache, "sync"], environment: env).output
        #expect(listed.split(separator: "\n").filter { $0.hasPrefix("note-") }.count == 20, "\(listed)")
        let onServer = try await Executables.offPool { () -> [String] in
            let store = try ServerStore(dataDirectory: data)
            let zone = ZoneID(zoneName: "Notes", ownerRecordName: user)
            return try store.environment(container, .development).zones.zoneChanges(in: .privateDatabase(of: user), zoneID: zone, since: nil).changed.map { $0.fields["text"].map { "\($0)" } ?? "" }
        }
        #expect(onServer.count == 20)
        #expect(Set(onServer).count == 20, "each note once: \(onServer)")
    }
}
