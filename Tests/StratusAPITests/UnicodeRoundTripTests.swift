import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore

/// Every Unicode scalar value a client may send in a STRING comes back exactly, through every read path, or the
/// write is refused before anything is stored. Strings are random (seeded; the seed is in every failure message),
/// drawn from control characters, C1 controls, BMP letters, specials and 4-byte characters.
@Suite struct UnicodeRoundTripTests {
    /// A small deterministic generator, so a failure names the seed that reproduces it.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let pools: [ClosedRange<UInt32>] = [
        0x01...0x1F, 0x7F...0x9F, 0x20...0x7E, 0xA0...0x2FF, 0x300...0x36F, 0x4E00...0x4E40, 0xFFF0...0xFFFF,
        0xD7F0...0xD7FF, 0xE000...0xE010, 0x1F600...0x1F64F, 0x10000...0x10010, 0x10FFF0...0x10FFFF,
    ]

    static func randomString(_ rng: inout SplitMix) -> String {
        var s = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 1...24, using: &rng) {
            let pool = pools.randomElement(using: &rng)!
            s.append(Unicode.Scalar(UInt32.random(in: pool, using: &rng))!)
        }
        return String(s)
    }

    /// JSON text for a string, built by Foundation (not by the server's own writer).
    static func json(_ s: String) -> String {
        let d = try! JSONSerialization.data(withJSONObject: [s], options: [.fragmentsAllowed])
        return String(decoding: d.dropFirst().dropLast(), as: UTF8.self)
    }

    /// Parsed with Foundation, so the server's parser does not check its own writer.
    static func parse(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// Scalars, not Strings: Swift's `==` on String is canonical equivalence, and a server that normalised
    /// text (é as e + U+0301) must fail here.
    static func exact(_ m: [String: String]) -> [String: [UInt32]] { m.mapValues { $0.unicodeScalars.map(\.value) } }

    static func titles(_ body: String, path: [String] = ["records"]) -> [String: [UInt32]] {
        var records: [[String: Any]] = []
        let root = parse(body)
        if path == ["zones", "records"] {
            for z in root["zones"] as? [[String: Any]] ?? [] { records += z["records"] as? [[String: Any]] ?? [] }
        } else {
            records = root["records"] as? [[String: Any]] ?? []
        }
        var out: [String: [UInt32]] = [:]
        for r in records {
            guard let name = r["recordName"] as? String, let fields = r["fields"] as? [String: Any],
                  let title = fields["title"] as? [String: Any], let v = title["value"] as? String else { continue }
            out[name] = v.unicodeScalars.map(\.value)
        }
        return out
    }

    @Test(arguments: Backend.allCases) func randomStringsRoundTripThroughEveryAPIPath(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix(state: seed)
        let zone = #""zoneID":{"zoneName":"Texts"}"#
        let made = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Texts"}}}]}"#,
                                    db: "private", user: f.aliceToken)
        #expect(made.status == 200)
        var expected: [String: String] = [:]
        for batch in 0..<4 {
            var ops: [String] = []
            for i in 0..<25 {
                let name = "r\(batch)-\(i)", value = Self.randomString(&rng)
                expected[name] = value
                ops.append(#"{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Text","fields":{"title":{"value":\#(Self.json(value)),"type":"STRING"},"n":{"value":\#(batch * 25 + i)}}}}"#)
            }
            let saved = try await f.call("records/modify", #"{\#(zone),"operations":[\#(ops.joined(separator: ","))]}"#, db: "private", user: f.aliceToken)
            #expect(saved.status == 200, "seed \(seed): \(saved.text.prefix(300))")
            for (name, v) in Self.titles(saved.text) { #expect(v == Self.exact(expected)[name], "acknowledged \(name), seed \(seed)") }
        }
        // Lookup.
        let names = expected.keys.sorted().map { #"{"recordName":"\#($0)"}"# }.joined(separator: ",")
        let lookup = try await f.call("records/lookup", #"{\#(zone),"records":[\#(names)]}"#, db: "private", user: f.aliceToken)
        #expect(Self.titles(lookup.text) == Self.exact(expected), "lookup, seed \(seed)")
        // Query: every value finds its own record by equality, and comes back whole.
        for (name, value) in expected.sorted(by: { $0.key < $1.key }).prefix(30) {
            let q = try await f.call("records/query", #"{\#(zone),"query":{"recordType":"Text","filterBy":[{"comparator":"EQUALS","fieldName":"title","fieldValue":{"value":\#(Self.json(value))}}]}}"#,
                                     db: "private", user: f.aliceToken)
            #expect(Self.titles(q.text)[name] == value.unicodeScalars.map(\.value), "query for \(name), seed \(seed): \(q.text.prefix(200))")
        }
        let all = try await f.call("records/query", #"{\#(zone),"query":{"recordType":"Text","sortBy":[{"fieldName":"n"}]}}"#, db: "private", user: f.aliceToken)
        #expect(Self.titles(all.text) == Self.exact(expected), "query all, seed \(seed)")
        // Change feeds.
        let changes = try await f.call("changes/zone", #"{"zones":[{\#(zone)}]}"#, db: "private", user: f.aliceToken)
        #expect(Self.titles(changes.text, path: ["zones", "records"]) == Self.exact(expected), "changes/zone, seed \(seed)")
        let recordChanges = try await f.call("records/changes", #"{\#(zone)}"#, db: "private", user: f.aliceToken)
        #expect(Self.titles(recordChanges.text) == Self.exact(expected), "records/changes, seed \(seed)")
    }

    @Test(arguments: Backend.allCases) func nulIsRefusedBeforeAnythingIsWritten(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        for (i, value) in ["a\u{0}b", "\u{0}", "end\u{0}", "😀\u{0}😀"].enumerated() {
            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"nul\#(i)","recordType":"Text","fields":{"title":{"value":\#(Self.json(value))}}}}]}"#
            let r = try await f.call("records/modify", body, user: f.aliceToken)
            #expect(r.json.records.first?.code == "BAD_REQUEST" || r.json.code == "BAD_REQUEST", "\(r.text)")
            #expect(r.text.contains("U+0000"))
            let list = #"{"operations":[{"operationType":"create","record":{"recordName":"nul-list\#(i)","recordType":"Text","fields":{"tags":{"value":["ok",\#(Self.json(value))]}}}}]}"#
            #expect(try await f.call("records/modify", list, user: f.aliceToken).json.records.first?.code == "BAD_REQUEST")
            let lookup = try await f.call("records/lookup", #"{"records":[{"recordName":"nul\#(i)"},{"recordName":"nul-list\#(i)"}]}"#)
            #expect(lookup.json.records.allSatisfy { $0.code == "NOT_FOUND" }, "nothing was written: \(lookup.text)")
        }
        // An atomic batch with one NUL value writes nothing at all.
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#, db: "private", user: f.aliceToken)
        let batch = #"{"zoneID":{"zoneName":"Z"},"atomic":true,"operations":[{"operationType":"create","record":{"recordName":"fine","recordType":"Text","fields":{"title":{"value":"fine"}}}},{"operationType":"create","record":{"recordName":"bad","recordType":"Text","fields":{"title":{"value":"x\u0000"}}}}]}"#
        _ = try await f.call("records/modify", batch, db: "private", user: f.aliceToken)
        let after = try await f.call("records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":[{"recordName":"fine"}]}"#, db: "private", user: f.aliceToken)
        #expect(after.json.records.first?.code == "NOT_FOUND")
    }

    @Test(arguments: Backend.allCases) func aLoneSurrogateEscapeIsInvalidJSON(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        for escape in [#"\ud800"#, #"\udc00"#, #"a\ud83dz"#, #"\ud83d\u0041"#] {
            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"s","recordType":"Text","fields":{"title":{"value":"\#(escape)"}}}}]}"#
            let r = try await f.call("records/modify", body, user: f.aliceToken)
            #expect(r.status == 400 && r.json.code == "BAD_REQUEST", "\(escape): \(r.text)")
        }
        #expect(try await f.call("records/lookup", #"{"records":[{"recordName":"s"}]}"#).json.records.first?.code == "NOT_FOUND")
    }
}
