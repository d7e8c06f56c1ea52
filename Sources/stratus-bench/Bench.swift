import ArgumentParser
import Foundation
import StratusHTTP

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus-bench",
        abstract: "Benchmarks for Stratus. Each scenario prints one JSON object per line.",
        subcommands: [StoreScenario.self, APIScenario.self, ConsoleScenario.self, NotifyScenario.self,
                      HostileScenario.self, KitScenario.self, SyncScenario.self, ImportScenario.self, EncodeProbe.self,
                ChangesProbe.self, WriterCommand.self, ModifyBaselineCommand.self, BackupScenario.self,
                FloodClient.self]
    )

    /// The servers a scenario starts run in this process: it caps malloc's arenas as `stratus` does.
    static func main() async {
        MallocArenas.limitToCores()
        await main(nil)
    }
}

/// One printed figure: `{"scenario","metric","value","unit","baseline"?,"ratio"?}`.
struct Figure {
    var scenario, metric: String
    var value: Double
    var unit: String
    var baseline: Double? = nil

    /// value / baseline: above 1 means more than the baseline (faster for rates, slower for times).
    var ratio: Double? { baseline.map { $0 == 0 ? 0 : value / $0 } }

    func print() {
        var parts = ["\"scenario\":\"\(scenario)\"", "\"metric\":\"\(metric)\"", "\"value\":\(round3(value))",
                     "\"unit\":\"\(unit)\""]
        if let baseline { parts.append("\"baseline\":\(round3(baseline))") }
        if let ratio { parts.append("\"ratio\":\(round3(ratio))") }
        emit("{" + parts.joined(separator: ",") + "}")
    }

    private func round3(_ v: Double) -> String { String(format: "%.3f", v) }
}

/// Writes a line to standard output unbuffered, so a reader (or a killer) sees it at once.
func emit(_ s: String) { FileHandle.standardOutput.write(Data((s + "\n").utf8)) }

func stderr(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

/// Processor time (user and system) a process has used so far, in seconds: this one, or another by pid.
func processCPUSeconds(pid: Int32? = nil) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return 0 }
    // After the command's closing parenthesis: state is field 3, utime and stime are fields 14 and 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Peak resident memory of this process, in MB (Linux's VmHWM).
func peakRSSMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kb / 1024
    }
    return 0
}

func median(_ xs: [Double]) -> Double {
    guard !xs.isEmpty else { return 0 }
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func millis(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
}

