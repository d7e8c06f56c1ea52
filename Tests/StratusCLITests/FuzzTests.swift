import Foundation
import Testing
import StratusTestSupport

/// The fuzzer (`stratus-fuzz`) in a child process: a trap in a parser or in the server kills the child, not the test
/// run, and comes back as a finding with its target and its input. The corpus is `Tests/Fuzz/corpus`.
@Suite struct FuzzTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus").path

    struct Run {
        var status: Int32
        var signaled: Bool
        var output: String
        var report: Data?
    }

    /// Runs `stratus-fuzz run` with its output in a file (a pipe left unread would stop a chatty child).
    static func fuzz(_ arguments: [String]) async throws -> Run {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-fuzz-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("output.txt"), report = dir.appendingPathComponent("report.bin")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        return try await offPool {
            let p = ChildProcess()
            p.executableURL = Executables.url("stratus-fuzz")
            p.arguments = ["run", "--report", report.path] + arguments
            p.currentDirectoryURL = dir
            let out = try FileHandle(forWritingTo: log)
            p.standardOutput = out
            p.standardError = out
            try p.run()
            p.waitUntilExit()
            try out.close()
            return Run(status: p.terminationStatus, signaled: p.terminationReason == .uncaughtSignal,
                       output: String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self),
                       report: try? Data(contentsOf: report))
        }
    }

    /// The harness itself: a target that traps on one input is reported, with that input, and the child dies of the
    /// signal a trap raises. Without this, a fuzz run that found nothing could be a harness that sees nothing.
    @Test func aTrapIsReportedWithItsInput() async throws {
        let corpus = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-fuzz-trap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: corpus.appendingPathComponent("trap"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: corpus) }
        try Data("it's a trap".utf8).write(to: corpus.appendingPathComponent("trap/seed"))
        let run = try await Self.fuzz(["--targets", "trap", "--seconds", "5", "--corpus", corpus.path])
        #expect(run.signaled && run.status == 4, "status \(run.status): \(run.output.suffix(500))")
        let report = String(decoding: run.report ?? Data(), as: UTF8.self)
        #expect(report.hasPrefix("target=trap\ncrash 04\n"), "\(report.prefix(200))")
        #expect(report.hasSuffix("it's a trap"), "\(report.suffix(200))")
    }

    /// Every parser a client's bytes reach, and the whole server, for a bounded time (`STRATUS_FUZZ_SECONDS`, 60 by
    /// default): no input may trap or hang.
    @Test func noInputStopsTheServer() async throws {
        let seconds = ProcessInfo.processInfo.environment["STRATUS_FUZZ_SECONDS"] ?? "60"
        let run = try await Self.fuzz(["--seconds", seconds, "--corpus", Self.corpus])
        if run.status != 0 || run.signaled {
            let report = run.report ?? Data()
            let head = report.prefix(64).split(separator: 10).prefix(2).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
            let header = head.utf8.count + 2
            let input = report.count > header ? Data(report.dropFirst(header)) : Data()
            Issue.record("""
                stratus-fuzz found an input that stops the server (\(head), exit \(run.status)).
                Input (base64): \(input.base64EncodedString())
                Reproduce: save the input to a file and run `swift run stratus-fuzz replay --target <target> FILE`.
                Output: \(run.output.suffix(3000))
                """)
        }
        #expect(run.output.contains("http: "), "the server target ran: \(run.output.suffix(1000))")
    }
}
