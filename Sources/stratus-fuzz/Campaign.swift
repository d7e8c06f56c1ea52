import Foundation

/// One target's share of a run: its corpus loaded, then mutate–run–keep until the time is up. An input joins the
/// corpus when its outcome is new; with `grow`, it is written to the target's folder too.
struct Campaign {
    let target: FuzzTarget
    let folder: URL
    let grow: Bool
    var mutator: Mutator
    var corpus: [[UInt8]] = []
    var outcomes: Set<String> = []

    struct Stats {
        var target: String
        var runs = 0
        var seeds = 0
        var added = 0
        var outcomes = 0
        var seconds = 0.0
        /// Inputs the server answered with a 500: a client's mistake must never be one.
        var serverErrors: [String] = []

        var summary: String {
            "\(target): \(runs) inputs in \(String(format: "%.1f", seconds)) s from \(seeds) seeds, \(outcomes) outcomes, \(added) new inputs"
        }
    }

    init(target: FuzzTarget, corpus directory: String, grow: Bool, seed: UInt64) throws {
        self.target = target
        self.grow = grow
        folder = URL(fileURLWithPath: directory).appendingPathComponent(target.name)
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in target.name.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        mutator = Mutator(seed: seed ^ h)
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        for f in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) where !f.lastPathComponent.hasPrefix(".") {
            corpus.append([UInt8](try Data(contentsOf: f)))
        }
        if corpus.isEmpty { corpus = [[]] }
    }

    /// A stable name for an input's file.
    static func name(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return String(h, radix: 16)
    }

    mutating func run(seconds: Double) throws -> Stats {
        var stats = Stats(target: target.name)
        stats.seeds = corpus.count
        CrashReport.setTarget(target.name)
        let start = Date()
        // Every seed once as it is, then mutations.
        for input in corpus { try execute(input, &stats) }
        while Date().timeIntervalSince(start) < seconds {
            let base = corpus[mutator.below(corpus.count)]
            let other = corpus[mutator.below(corpus.count)]
            try execute(mutator.mutate(base, dictionary: target.dictionary, other: other, maxLength: target.maxLength),
                        &stats)
        }
        stats.seconds = Date().timeIntervalSince(start)
        stats.outcomes = outcomes.count
        return stats
    }

    private mutating func execute(_ input: [UInt8], _ stats: inout Stats) throws {
        CrashReport.set(input)
        let outcome = target.run(input)
        CrashReport.ran()
        stats.runs += 1
        if outcome.hasPrefix("500"), stats.serverErrors.count < 50 { stats.serverErrors.append(String(decoding: input.prefix(400), as: UTF8.self)) }
        guard outcomes.insert(outcome).inserted, stats.runs > stats.seeds else { return }
        corpus.append(input)
        stats.added += 1
        if grow {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(input).write(to: folder.appendingPathComponent(Self.name(input)))
        }
    }
}
