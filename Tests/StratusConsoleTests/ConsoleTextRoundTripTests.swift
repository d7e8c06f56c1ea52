import Foundation
import Testing
import StratusModel
import StratusStore

/// Text with control characters, line breaks of every kind, C1 controls and 4-byte characters survives the
/// console: shown, exported and saved back through a browser's form unchanged when the admin did not touch it.
@Suite struct ConsoleTextRoundTripTests {
    static let samples: [String] = [
        "\r", "\n", "\r\n", "a\rb", "a\nb", "a\r\nb", "\nleading newline", "trailing\n", "\u{1}\u{2}\u{1F}\u{7F}", "\u{80}\u{9F}\u{85}",
        "tab\there", "😀👩‍👩‍👧 𝄞 \u{10FFFF}", "e\u{301} vs é", "<b>&amp;</b>\"'", "\u{FEFF}\u{FFFE}\u{FFFF}", "  spaces  ", "\u{2028}\u{2029}",
    ]

    /// What a browser's HTML parser makes of a textarea's escaped content: character references decoded, the
    /// first newline after the tag dropped, CR and CRLF read as LF. Then the form submits each LF as CRLF.
    static func submittedByBrowser(_ escaped: String) -> String {
        // The input stream: CRLF and CR become LF; a textarea drops one newline right after its start tag.
        var raw = escaped.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        if raw.hasPrefix("\n") { raw.removeFirst() }
        // Character references, named and numeric.
        var text = String.UnicodeScalarView()
        var rest = Substring(raw)
        while let amp = rest.firstIndex(of: "&") {
            text.append(contentsOf: rest[..<amp].unicodeScalars)
            rest = rest[amp...]
            guard let semi = rest.firstIndex(of: ";") else { break }
            let name = rest[rest.index(after: rest.startIndex)..<semi]
            let named = ["lt": "<", "gt": ">", "quot": "\"", "amp": "&", "apos": "'"]
            if let v = named[String(name)] {
                text.append(contentsOf: v.unicodeScalars)
            } else if name.hasPrefix("#x") || name.hasPrefix("#X"), let n = UInt32(name.dropFirst(2), radix: 16), let u = Unicode.Scalar(n) {
                text.append(u)
            } else if name.hasPrefix("#"), let n = UInt32(name.dropFirst()), let u = Unicode.Scalar(n) {
                text.append(u)
            } else {
                text.append(contentsOf: rest[...semi].unicodeScalars)
            }
            rest = rest[rest.index(after: semi)...]
        }
        text.append(contentsOf: rest.unicodeScalars)
        // The form data set: every line break of the value as CRLF.
        return String(text).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\n", with: "\r\n")
    }

    /// A string as JSON text, written the way the console writes JSON.
    static func jsonText(_ s: String) -> String {
        let d = try! JSONSerialization.data(withJSONObject: [s], options: [.fragmentsAllowed, .withoutEscapingSlashes])
        return String(decoding: d.dropFirst().dropLast(), as: UTF8.self)
    }

    @Test func textSurvivesViewEditAndExport() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Text")
        try f.app.store.createContainer(container)
        let env = try f.app.store.environment(container, .development)
        for (i, text) in Self.samples.enumerated() {
            _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "t\(i)", recordType: "Text", fields: ["title": .string(text), "n": .int64(Int64(i))]))],
                               in: .publicDatabase, actor: .system)
        }
        let base = "/console/\(container.rawValue)/development/public"
        for (i, text) in Self.samples.enumerated() {
            let page = try await s.get("\(base)/records/_defaultZone/t\(i)")
            let shown = try #require(page.html.firstMatch(of: /<textarea name="v:title" rows="2">([^<]*)<\/textarea>/).map { String($0.1) }, "t\(i)")
            let tag = try #require(page.html.firstMatch(of: /name="tag" value="([^"]+)"/).map { String($0.1) })
            // The admin changes another field and saves: the text stays exactly as it was.
            let saved = try await s.post("\(base)/records/_defaultZone/t\(i)", [("tag", tag), ("v:title", Self.submittedByBrowser(shown)), ("v:n", "\(100 + i)")])
            #expect(saved.status == 303, "t\(i): \(saved.html.prefix(300))")
            let stored = try env.records.lookup(["t\(i)"], in: .publicDatabase)[0].get()
            guard case .string(let after)? = stored.fields["title"] else { Issue.record("t\(i) lost its title"); continue }
            #expect(Array(after.unicodeScalars) == Array(text.unicodeScalars), "t\(i) \(text.debugDescription) came back as \(after.debugDescription)")
            #expect(stored.fields["n"] == .int64(Int64(100 + i)))
            // The JSON view carries it exactly (compared as JSON text: Foundation's parser on Linux drops U+FEFF).
            let json = try await s.get("\(base)/records/_defaultZone/t\(i)", accept: "application/json")
            #expect(json.html.contains(#""title":{"type":"STRING","value":\#(Self.jsonText(text))}"#) || json.html.contains(Self.jsonText(text)),
                    "t\(i) JSON view: \(json.html.prefix(300))")
        }
        let export = try await s.get("\(base)/records?type=Text&sort=n", accept: "application/json")
        for (i, text) in Self.samples.enumerated() { #expect(export.html.contains(Self.jsonText(text)), "t\(i) in the export") }
    }
}
