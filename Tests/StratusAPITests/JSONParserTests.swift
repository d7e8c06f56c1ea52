import Foundation
import Testing
@testable import StratusAPI
import StratusModel

@Suite struct JSONParserTests {
    func parse(_ s: String) throws -> JSON { try JSON.parse(Data(s.utf8)) }

    @Test func parsesEveryKindOfValue() throws {
        let j = try parse(#" {"a": [1, -2, 3.5, 1e3, true, false, null, "x\"\\\/\n\u00e9\ud83d\ude00"], "b": {}, "c": [] , "d": 9223372036854775807} "#)
        #expect(j["a"] == .array([.int(1), .int(-2), .double(3.5), .double(1000), .bool(true), .bool(false), .null, .string("x\"\\/\né😀")]))
        #expect(j["b"] == .object([:]))
        #expect(j["c"] == .array([]))
        #expect(j["d"] == .int(.max))
        // Past Int64: a double, as a JavaScript client would see it.
        #expect(try parse("18446744073709551616") == .double(18446744073709551616))
        #expect(try parse("  ") == .object([:]))
        #expect(try parse("\"plain ünïcode\"") == .string("plain ünïcode"))
    }

    @Test func refusesMalformedBodies() {
        let bad = ["{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "01", "1.", ".5", "-", "+1", "tru", "nul", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"",
                   "\"a\nb\"", "{} {}", "[1] x", "{a:1}", "'a'", "1e", "NaN", "Infinity", "1e999", "\"unterminated"]
        for text in bad {
            #expect(throws: APIError.self, "\(text)") { try parse(text) }
        }
        // Invalid UTF-8 is refused, not repaired.
        #expect(throws: APIError.self) { try JSON.parse(Data([0x22, 0xC3, 0x28, 0x22])) }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: APIError.self) { try parse(deep) }
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? parse(ok)) != nil)
    }

    @Test func roundTripsThroughTheWriter() throws {
        let text = #"{"a":[1,2.5,"<b>"],"b":{"c":null,"d":true}}"#
        let j = try parse(text)
        #expect(try parse(j.serialized) == j)
    }
}
