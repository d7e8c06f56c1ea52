import Foundation
import StratusAPI

/// A progress bar on a terminal (redrawn in place), plain progress lines every two seconds otherwise.
final class ProgressBar {
    private let terminal = isatty(STDERR_FILENO) != 0
    private var lastLine = Date.distantPast

    func show(_ p: RecordImporter.Progress) {
        let share = p.totalBytes > 0 ? min(1, Double(p.bytesRead) / Double(p.totalBytes)) : 0
        let eta = p.secondsLeft.map { String(format: "ETA %d:%02d", Int($0) / 60, Int($0) % 60) } ?? "ETA –"
        let rate = String(format: "%.0f records/s", p.recordsPerSecond)
        if terminal {
            let width = 30, filled = Int(share * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(Int(share * 100))%  \(p.records) records  \(rate)  \(eta) ".utf8))
        } else if Date().timeIntervalSince(lastLine) >= 2 {
            lastLine = Date()
            FileHandle.standardError.write(Data("imported \(p.records) records (\(Int(share * 100))%), \(rate), \(eta)\n".utf8))
        }
    }

    func finish() { if terminal { FileHandle.standardError.write(Data("\n".utf8)) } }
}
