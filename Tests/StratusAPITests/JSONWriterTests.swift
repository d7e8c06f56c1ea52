import Foundation
import Testing
@testable import StratusAPI
@testable import StratusModel

@Suite struct JSONWriterTests {
    @Test func escapesWhatCouldBreakOutOfAString() {
        var w = JSONWriter(capacity: 8)
        w.beginObject()
        w.field("k", "a\"b\\c\n\r\t\u{01}<script>é")
        let dynamicKey = "dynamic \"key\""
        w.key(dynamicKey); w.int(-9_223_372_036_854_775_807 - 1)
        w.key("n"); w.int(0)
        w.key("d"); w.double(2.5)
        w.key("i"); w.double(3)
        w.endObject()
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text == #"{"k":"a\"b\\c\n\r\t\u0001\u003cscript\u003eé","dynamic \"key\"":-9223372036854775808,"n":0,"d":2.5,"i":3.0}"#)
        // And it parses back to the same strings.
        let j = try? JSON.parse(w.data)
        #expect(j?["k"] == .string("a\"b\\c\n\r\t\u{01}<script>é"))
    }

    /// One escaping rule for responses and notification payloads: U+2028/U+2029 escaped (safe inside a script),
    /// other characters sharing their first byte (“curly quotes”, €) left as UTF-8.
    @Test func responsesAndPayloadsEscapeAlike() {
        let s = "a\u{2028}b\u{2029}c “quoted” € <x>\u{2028}"
        var w = JSONWriter()
        w.string(s)
        var payload: [UInt8] = []
        JSONWriter.quote(s, into: &payload)
        let expected = #""a\u2028b\u2029c “quoted” € \u003cx\u003e\u2028""#
        #expect(String(decoding: w.bytes, as: UTF8.self) == expected)
        #expect(String(decoding: payload, as: UTF8.self) == expected)
        #expect((try? JSON.parse(Data(payload))) == .string(s))
    }

    @Test func base64MatchesFoundationForEveryTailLength() {
        for n in 0..<70 {
            let d = Data((0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
            var w = JSONWriter(capacity: 4)
            w.base64(d)
            #expect(String(decoding: w.bytes, as: UTF8.self) == "\"\(d.base64EncodedString())\"")
        }
    }

    @Test func nestedContainersGetTheirCommas() {
        var w = JSONWriter()
        w.beginArray()
        w.beginObject(); w.key("a"); w.beginArray(); w.int(1); w.int(2); w.endArray(); w.endObject()
        w.beginArray(); w.endArray()
        w.null(); w.bool(true)
        w.endArray()
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"[{"a":[1,2]},[],null,true]"#)
    }

    /// A zone whose changes fail halfway is taken back out: what follows is valid JSON, commas included.
    @Test func rollingBackToAMarkDropsHalfWrittenValues() {
        var w = JSONWriter(capacity: 8)
        w.beginArray()
        for (i, fails) in [false, true, false, true].enumerated() {
            let mark = w.mark()
            w.beginObject(); w.field("zone", Int64(i)); w.key("records"); w.beginArray(); w.string(String(repeating: "x", count: 100))
            if fails {
                w.rollback(to: mark)
                w.beginObject(); w.field("serverErrorCode", "ZONE_NOT_FOUND"); w.endObject()
            } else {
                w.endArray(); w.endObject()
            }
        }
        w.endArray()
        let text = String(decoding: w.bytes, as: UTF8.self)
        let x = String(repeating: "x", count: 100)
        #expect(text == #"[{"zone":0,"records":["\#(x)"]},{"serverErrorCode":"ZONE_NOT_FOUND"},{"zone":2,"records":["\#(x)"]},{"serverErrorCode":"ZONE_NOT_FOUND"}]"#)
    }
}
