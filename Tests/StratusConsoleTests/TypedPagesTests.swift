import Foundation
import Testing

/// Console pages are typed views (see TemplateEncoder): no page builds a `[String: Any]` that a template reads by
/// name and a typo leaves empty. A look at the sources, so that the next page added keeps to it.
@Suite struct TypedPagesTests {
    @Test func noUntypedDictionaryIsLeftInTheConsole() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/StratusConsole")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" })
        #expect(files.count > 20, "found only \(files.count) files under \(root.path)")
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                #expect(!line.contains("[String: Any]") && !line.contains("JSONSerialization"), "\(file.lastPathComponent):\(n + 1): \(line)")
            }
        }
    }
}
