import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `stratus-fuzz`: feeds mutated inputs to every parser a client's bytes reach, and to the whole server, looking for
/// an input that traps (a crash is a denial of service for every user) or hangs. Run by `swift test` (FuzzTests, in
/// a child process, for a bounded time) and by hand to grow the corpus:
///
///     swift run stratus-fuzz run --seconds 600 --grow          # new inputs into Tests/Fuzz/corpus
///     swift run stratus-fuzz replay --target http FILE         # one input again, e.g. a report's
@main
struct StratusFuzz: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stratus-fuzz",
                                                    abstract: "Fuzz Stratus's parsers and server.",
                                                    subcommands: [Run.self, Replay.self])

    static func targets(_ names: String?) throws -> [FuzzTarget] {
        let all = ParserTargets.all + [ServerTarget.target, TrapTarget.target]
        guard let names else { return all.filter { $0.name != "trap" } }
        return try names.split(separator: ",").map { n in
            guard let t = all.first(where: { $0.name == n }) else { throw ValidationError("no target '\(n)': \(all.map(\.name).joined(separator: ", "))") }
            return t
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mutate the corpus against the targets for a while.")
        @Option(help: "How long in all; the server target gets half, the parsers share the rest.") var seconds: Double = 60
        @Option(help: "Comma-separated targets (default: all).") var targets: String?
        @Option(help: "The corpus: one folder per target, one file per input.") var corpus: String = "Tests/Fuzz/corpus"
        @Flag(help: "Write inputs with a new outcome into the corpus.") var grow = false
        @Option(help: "Where a crash or hang is reported (target, kind, then the input's bytes).") var report: String = "fuzz-report.bin"
        @Option(help: "Seed of the mutations (default: the time).") var seed: UInt64?
        @Option(help: "A run with no new input for this long is a hang.") var hangSeconds = 30

        func run() async throws {
            let chosen = try StratusFuzz.targets(targets)
            signal(SIGPIPE, SIG_IGN)
            CrashReport.install(path: report, hangSeconds: hangSeconds)
            let seed = self.seed ?? UInt64(Date().timeIntervalSince1970 * 1000)
            print("seed \(seed)")
            if chosen.contains(where: { $0.name == "http" || $0.name == "head" }) { try await ServerTarget.start() }
            let parsers = chosen.filter { $0.name != "http" }
            let hasServer = chosen.count != parsers.count
            var findings = 0
            for target in chosen {
                let share = target.name == "http" ? (parsers.isEmpty ? seconds : seconds / 2)
                    : (hasServer ? seconds / 2 : seconds) / Double(max(parsers.count, 1))
                // On a thread of its own: the server target blocks on its socket, and Swift's few cooperative threads
                // are the server's.
                let (corpus, grow) = (self.corpus, self.grow)
                let stats = try await withCheckedThrowingContinuation { (done: CheckedContinuation<Campaign.Stats,
                        any Error>) in
                    Thread {
                        done.resume(with: Result {
                            var campaign = try Campaign(target: target, corpus: corpus, grow: grow, seed: seed)
                            return try campaign.run(seconds: share)
                        })
                    }.start()
                }
                print(stats.summary)
                findings += stats.serverErrors.count
                for e in stats.serverErrors.prefix(5) { print("  500 from: \(e.debugDescription.prefix(300))") }
            }
            await ServerTarget.stop()
            unlink(report)
            if findings > 0 { print("\(findings) inputs answered 500 (a client's mistake must not be)") }
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run one input (a corpus file or a report's) against one target.")
        @Option var target: String
        @Argument var file: String

        func run() async throws {
            guard let t = try StratusFuzz.targets(target).first else { return }
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            // A report starts with two lines of its own.
            if bytes.starts(with: Array("target=".utf8)) {
                for _ in 0..<2 { if let nl = bytes.firstIndex(of: 10) { bytes.removeSubrange(0...nl) } }
            }
            if t.name == "http" || t.name == "head" { try await ServerTarget.start() }
            print(t.run(bytes))
            await ServerTarget.stop()
        }
    }
}

/// A target that traps on purpose when an input holds `trap`: FuzzTests runs it to prove that a trap in the child is
/// reported with its input, so that the real run cannot pass for want of a working harness.
enum TrapTarget {
    static let target = FuzzTarget("trap", dictionary: ["tr", "ap", "trap"]) { bytes in
        if Mutator.find(Array("trap".utf8), in: bytes) != nil {
            let index = Int(bytes.count) + 10
            return "\(bytes[index])"  // out of range: the same trap a bad subscript in a parser is
        }
        return "fine"
    }
}
