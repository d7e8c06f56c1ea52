import Foundation
import Testing
import StratusTestSupport

/// Runs the package's built executables (`stratus`, `stratus-bench`) as a user would.
enum Executables {
    /// The build products directory: where the test bundle itself was built.
    static var productsDirectory: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        // On Linux the test binary sits directly in the products directory; on macOS inside an .xctest bundle.
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("stratus").path) && url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
        }
        return url
    }

    static func url(_ name: String) -> URL { productsDirectory.appendingPathComponent(name) }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the executable on a thread of its own: waiting for a child process must not hold one of Swift's
    /// few cooperative threads, which other tests' servers need.
    @discardableResult
    static func run(_ name: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) async throws -> Output {
        try await offPool { try runBlocking(name, arguments, stdin: stdin, environment: environment) }
    }

    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await StratusTestSupport.offPool(body)
    }

    static func runBlocking(_ name: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
        let p = ChildProcess()
        p.executableURL = url(name)
        p.arguments = arguments
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// Runs any program (an example's binary, a script) on a thread of its own; its exit status and its standard
    /// output and error together.
    static func runProgram(_ executable: URL, _ arguments: [String] = [], environment: [String: String]? = nil) async throws -> (status: Int32, output: String) {
        try await offPool {
            let p = ChildProcess()
            p.executableURL = executable
            p.arguments = arguments
            if let environment { p.environment = environment }
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let out = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: out, as: UTF8.self))
        }
    }

    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-cli-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
