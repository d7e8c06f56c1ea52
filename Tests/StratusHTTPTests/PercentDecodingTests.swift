import Foundation
import Testing
@testable import StratusHTTP

@Suite struct PercentDecodingTests {
    @Test func agreesWithFoundation() {
        let samples = ["plain", "", "a%20b", "%2e%2e", "%2F", "%E2%9C%93", "%e2%9c%93x", "100%", "%4", "%zz", "%C3%28", "%00", "a+b", "%2B",
                       "rec-00374487", "ünïcode%20", "%FF", "%%", "%C3"]
        for s in samples {
            #expect(PercentDecoding.decode(s) == s.removingPercentEncoding, "\(s)")
            #expect(PercentDecoding.decode(s, plusAsSpace: true) == s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding, "\(s)")
        }
    }

    @Test func formItemsDecodeBothHalves() {
        let items = HTTPRequest.formItems("a=1&b=x+y%21&c&=v&d=%zz")
        #expect(items.map(\.name) == ["a", "b", "c", "", "d"])
        #expect(items.map(\.value) == ["1", "x y!", "", "v", ""])
    }
}
