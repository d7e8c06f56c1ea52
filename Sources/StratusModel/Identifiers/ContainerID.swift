/// A container identifier such as `iCloud.com.example.Notes`.
/// Validated once here so that paths, file names and URLs built from it are always safe.
public struct ContainerID: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    public let rawValue: String

    public init(_ rawValue: String) throws(StratusError) {
        guard ContainerID.isValid(rawValue) else {
            throw .badRequest("invalid container identifier '\(rawValue.prefix(80))': expected iCloud. followed by dot-separated letters, digits, '-' or '_' (at most 255 characters)")
        }
        self.rawValue = rawValue
    }

    /// One pass over the bytes (every request names its container): `iCloud.`, then dot-separated segments, none
    /// empty, of letters, digits, `-` and `_`.
    public static func isValid(_ s: String) -> Bool {
        let utf8 = s.utf8
        guard utf8.count <= 255, utf8.starts(with: "iCloud.".utf8) else { return false }
        var segmentLength = 0
        for b in utf8.dropFirst(7) {
            if b == UInt8(ascii: ".") {
                guard segmentLength > 0 else { return false }
                segmentLength = 0
            } else {
                guard b.isIdentifierByte || b == UInt8(ascii: "-") else { return false }
                segmentLength += 1
            }
        }
        return segmentLength > 0
    }

    public var description: String { rawValue }
    public static func < (a: ContainerID, b: ContainerID) -> Bool { a.rawValue < b.rawValue }
    public init(from decoder: any Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(s) } catch { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: error.reason)) }
    }
    public func encode(to encoder: any Encoder) throws { var c = encoder.singleValueContainer(); try c.encode(rawValue) }
}

extension UInt8 {
    /// ASCII letter, digit or underscore.
    var isIdentifierByte: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A) || self == 0x5F
    }
    var isASCIILetter: Bool { (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A) }
}
