import Foundation

/// What an end-to-end test needs from the machine beyond Swift (a Python package, a browser, nginx). A test whose
/// prerequisite is missing is skipped with a message naming what to install, so `swift test` works on a fresh
/// machine; `.ci/run` installs everything and sets STRATUS_REQUIRE_ALL=1, so there nothing is skipped.
public enum Prerequisites {
    public static var required: Bool {
        let env = ProcessInfo.processInfo.environment
        return env["STRATUS_REQUIRE_ALL"] == "1" || env["STRATUS_REQUIRE_BROWSER"] == "1"
    }

    /// Whether `python3` can import every module named.
    public static func pythonModules(_ modules: [String]) -> Bool {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import " + modules.joined(separator: ", ")]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// The path of an executable on PATH (or at one of `extra`), if any.
    public static func executable(_ name: String, extra: [String] = []) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        for dir in path.split(separator: ":").map(String.init) + extra {
            let candidate = dir.hasSuffix("/" + name) ? dir : "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// True when the test can run (or must: then a missing prerequisite fails it loudly).
    public static func available(_ present: Bool) -> Bool { present || required }
}

/// Runs blocking work (a child process, a blocking read) on a thread of its own: neither Swift's few cooperative
/// threads nor the servers' shared BlockingWork pool may wait on it, or every other test's server stalls.
@discardableResult
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { c in Thread { c.resume(with: Result { try body() }) }.start() }
}

