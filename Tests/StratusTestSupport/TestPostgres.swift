import Foundation

/// The PostgreSQL the tests use: `STRATUS_TEST_POSTGRES_URL` (which `.ci/run` exports after starting a
/// throw-away cluster with `scripts/pg-throwaway`). Without it the PostgreSQL tests are skipped with a line that
/// says so, except where every test must run (`STRATUS_REQUIRE_ALL=1`, CI): there they fail.
public enum TestPostgres {
    public static var url: String? {
        let env = ProcessInfo.processInfo.environment
        if let u = env["STRATUS_TEST_POSTGRES_URL"], !u.isEmpty { return u }
        print("PostgreSQL tests skipped: no STRATUS_TEST_POSTGRES_URL (start one with: eval \"$(scripts/pg-throwaway start)\")")
        return nil
    }

    /// Whether a missing URL must fail the test instead of skipping it.
    public static var required: Bool { Prerequisites.required || ProcessInfo.processInfo.environment["CI"] != nil }

    /// The repository's `scripts/pg-throwaway`.
    public static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/pg-throwaway").path
    }
}

/// A cluster of a test's own (`scripts/pg-throwaway`), for tests that stop or restart PostgreSQL under a server.
public final class ThrowawayPostgres: @unchecked Sendable {
    public let url: String
    public let directory: String

    public init() throws {
        let out = try Self.run(["start"])
        var url = "", dir = ""
        for part in out.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if part.hasPrefix("STRATUS_TEST_POSTGRES_URL=") { url = String(part.dropFirst("STRATUS_TEST_POSTGRES_URL=".count)) }
            if part.hasPrefix("STRATUS_TEST_POSTGRES_DIR=") { dir = String(part.dropFirst("STRATUS_TEST_POSTGRES_DIR=".count)) }
        }
        guard !url.isEmpty, !dir.isEmpty else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "pg-throwaway said: \(out)"]) }
        self.url = url
        self.directory = dir
    }

    /// Stops PostgreSQL (fast shutdown: open connections are cut) and starts it again on the same port.
    public func restart() throws { _ = try Self.run(["restart", directory]) }

    public func stop() { _ = try? Self.run(["stop", directory]) }

    deinit { stop() }

    @discardableResult
    public static func run(_ arguments: [String]) throws -> String {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [TestPostgres.script] + arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.standardError
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "pg-throwaway \(arguments.joined(separator: " ")) failed"])
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension TestPostgres {
    /// A database of the test's own on the test cluster (`CREATE DATABASE`), so tests never see each other's
    /// data; nil when there is no cluster. Dropped when `drop` is called (or with the cluster).
    ///
    /// `CREATE DATABASE` takes a second or more on a busy machine: it runs on a thread of its own, never on one of
    /// Swift's few cooperative threads, which every in-process server of the test run answers on (a few dozen
    /// PostgreSQL test cases starting together once held them for 20 s, and other suites' requests timed out).
    /// `drop` returns at once and drops on a thread of its own, for the same reason.
    public static func freshDatabase() async throws -> (url: String, drop: @Sendable () -> Void)? {
        try await offPool { try freshDatabaseBlocking() }
    }

    /// The same, for code already on a thread of its own.
    public static func freshDatabaseBlocking() throws -> (url: String, drop: @Sendable () -> Void)? {
        guard let base = url, let slash = base.lastIndex(of: "/") else { return nil }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try psql(base, "CREATE DATABASE \(name)")
        let url = String(base[...slash]) + name
        return (url, { Thread { _ = try? psql(base, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }.start() })
    }

    /// Runs one SQL command with `psql`.
    @discardableResult
    public static func psql(_ url: String, _ sql: String) throws -> String {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["psql", url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", sql]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.standardError
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "psql failed: \(sql)"]) }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
