import Foundation

/// The last line an import committed, kept in `<file>.import-state` beside the file with the target it was for.
struct ImportState {
    let file: URL
    let target: String
    var url: URL { file.appendingPathExtension("import-state") }

    func committedLines() -> Int {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return 0 }
        let parts = text.split(separator: "\n")
        guard parts.count == 2, parts[0] == target else { return 0 }
        return Int(parts[1]) ?? 0
    }

    func save(_ line: Int) throws { try Data("\(target)\n\(line)".utf8).write(to: url, options: .atomic) }
    func clear() { try? FileManager.default.removeItem(at: url) }
}
