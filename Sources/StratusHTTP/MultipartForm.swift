import Foundation

/// A `multipart/form-data` body (RFC 7578), as a browser sends a form with a file input. Parsing is one pass
/// over the bytes for the boundary; a malformed body is nil, never a partial answer.
public struct MultipartForm: Sendable {
    public struct Part: Sendable {
        public var name: String
        public var filename, contentType: String?
        public var data: Data
    }

    public var parts: [Part]

    /// The text fields (parts without a file), as url-encoded forms give them.
    public var fields: [(name: String, value: String)] {
        parts.filter { $0.filename == nil }.map { ($0.name, String(decoding: $0.data, as: UTF8.self)) }
    }

    public func file(named name: String) -> Part? { parts.first { $0.name == name && $0.filename != nil } }

    /// The boundary of a `multipart/form-data` Content-Type, or nil for any other type.
    public static func boundary(_ contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for param in contentType.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard kv.count == 2, kv[0].lowercased() == "boundary" else { continue }
            let b = kv[1].hasPrefix("\"") && kv[1].hasSuffix("\"") && kv[1].count >= 2 ? String(kv[1].dropFirst().dropLast()) : kv[1]
            return (1...70).contains(b.utf8.count) ? b : nil
        }
        return nil
    }

    public init?(_ body: Data, contentType: String?) {
        guard let boundary = MultipartForm.boundary(contentType) else { return nil }
        let bytes = [UInt8](body)
        let delimiter = Array("--\(boundary)".utf8)
        guard var at = MultipartForm.find(delimiter, in: bytes, from: 0) else { return nil }
        var parts: [Part] = []
        while true {
            at += delimiter.count
            // "--" after a delimiter ends the body.
            if at + 1 < bytes.count, bytes[at] == UInt8(ascii: "-"), bytes[at + 1] == UInt8(ascii: "-") { break }
            guard at + 1 < bytes.count, bytes[at] == 13, bytes[at + 1] == 10 else { return nil }
            at += 2
            guard let headEnd = MultipartForm.find([13, 10, 13, 10], in: bytes, from: at) else { return nil }
            let head = String(decoding: bytes[at..<headEnd], as: UTF8.self)
            let contentStart = headEnd + 4
            guard let next = MultipartForm.find([13, 10] + delimiter, in: bytes, from: contentStart) else { return nil }
            guard let part = MultipartForm.part(head: head, data: Data(bytes[contentStart..<next])) else { return nil }
            parts.append(part)
            at = next + 2
        }
        self.parts = parts
    }

    private static func part(head: String, data: Data) -> Part? {
        var name, filename, type: String?
        for line in head.components(separatedBy: "\r\n") {
            let kv = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard kv.count == 2 else { continue }
            switch kv[0].lowercased() {
            case "content-disposition":
                for param in kv[1].split(separator: ";").dropFirst() {
                    let p = param.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard p.count == 2 else { continue }
                    let value = p[1].hasPrefix("\"") && p[1].hasSuffix("\"") && p[1].count >= 2 ? String(p[1].dropFirst().dropLast()) : p[1]
                    if p[0].lowercased() == "name" { name = value }
                    if p[0].lowercased() == "filename" { filename = value }
                }
            case "content-type": type = kv[1]
            default: break
            }
        }
        guard let name else { return nil }
        return Part(name: name, filename: filename, contentType: type, data: data)
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        let m = pattern.count
        guard m > 0, bytes.count - from >= m else { return nil }
        var i = from
        while i + m <= bytes.count {
            if bytes[i] == pattern[0] {
                var k = 1
                while k < m && bytes[i + k] == pattern[k] { k += 1 }
                if k == m { return i }
            }
            i += 1
        }
        return nil
    }
}
