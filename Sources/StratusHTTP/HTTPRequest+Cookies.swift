import Foundation

extension HTTPRequest {
    /// The value of the request's cookie `name` (the first, across its Cookie headers); nil when it has none.
    /// Read on bytes: every console request asks for its session this way.
    public func cookie(_ name: String) -> String? {
        let wanted = Array(name.utf8)
        for (field, value) in headers.fields where field == "cookie" {
            let bytes = Array(value.utf8)
            var start = 0
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
                if let eq = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")),
                   Self.trimmed(bytes[start..<eq]).elementsEqual(wanted) {
                    return String(decoding: Self.trimmed(bytes[(eq + 1)..<end]), as: UTF8.self)
                }
                start = end + 1
            }
        }
        return nil
    }

    /// Spaces and tabs off both ends.
    private static func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = s
        while let f = s.first, f == 32 || f == 9 { s = s.dropFirst() }
        while let l = s.last, l == 32 || l == 9 { s = s.dropLast() }
        return s
    }
}
