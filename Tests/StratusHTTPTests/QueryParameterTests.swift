import Testing
@testable import StratusHTTP

/// `HTTPRequest.query` decodes only the pair it names, and answers as decoding every pair would: the first pair of
/// that name, names and values percent- and plus-decoded, a bare name as "", an undecodable name skipped.
@Suite struct QueryParameterTests {
    static func request(_ target: String) throws -> HTTPRequest {
        try RequestHeadParser.parse(Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)[...], remoteAddress: "127.0.0.1")
    }

    @Test func matchesWhatDecodingEveryPairGives() throws {
        let targets = ["/p?ckAPIToken=abc&ckWebAuthToken=a%2Bb%3D&x=1", "/p?ck%41PIToken=enc&ckAPIToken=second", "/p?a+b=c+d&flag&ckSession=s%20t",
                       "/p?bad%zz=1&bad%zz=2&ckAPIToken=", "/p", "/p?", "/p?=v&&ckWebAuthToken=w+x"]
        for target in targets {
            let req = try Self.request(target)
            for name in ["ckAPIToken", "ckWebAuthToken", "ckSession", "a b", "flag", "x", "bad%zz", "missing", ""] {
                let expected = req.queryItems.first { $0.name == name }?.value
                #expect(req.query(name) == expected, "\(target) \(name)")
            }
        }
        #expect(try Self.request("/p?ck%41PIToken=enc&ckAPIToken=second").query("ckAPIToken") == "enc")
        #expect(try Self.request("/p?ckWebAuthToken=a%2Bb%3D").query("ckWebAuthToken") == "a+b=")
        #expect(try Self.request("/p?flag").query("flag") == "")
    }
}
