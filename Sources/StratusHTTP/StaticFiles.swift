import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Serves files under one directory. Every path is checked segment by segment (no dot segments, hidden
/// names, backslashes or NULs, however they were encoded) and then resolved with `realpath`, so neither
/// `..` nor a symlink can reach outside the root.
public struct StaticFiles: Sendable {
    public let root: String

    public init(root: String) {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        self.root = realpath(root, &buf) != nil ? String(cString: buf) : root
    }

    static let types: [String: String] = [
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml",
        "png": "image/png", "ico": "image/x-icon", "json": "application/json", "txt": "text/plain; charset=utf-8",
        "html": "text/html; charset=utf-8", "woff2": "font/woff2",
    ]

    /// The response for a file named by path segments (already percent-decoded).
    public func response(for segments: [String], request: HTTPRequest) -> HTTPResponse {
        let notFound = HTTPResponse.text("not found\n", status: .notFound)
        guard !segments.isEmpty, segments.allSatisfy(StaticFiles.isSafeSegment) else { return notFound }
        let path = root + "/" + segments.joined(separator: "/")
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(path, &buf) != nil else { return notFound }
        let resolved = String(cString: buf)
        guard resolved.hasPrefix(root + "/") else { return notFound }
        var st = stat()
        guard stat(resolved,
                   &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, let data = FileManager.default.contents(atPath: resolved) else {
            return notFound
        }
        let mtime = Int(st.st_mtim.tv_sec)
        let etag = "W/\"\(st.st_size)-\(mtime)\""
        var headers = HTTPHeaders()
        headers["etag"] = etag
        headers["last-modified"] = StaticFiles.httpDate(Date(timeIntervalSince1970: TimeInterval(mtime)))
        headers["cache-control"] = request.query("v") != nil ? "public, max-age=31536000, immutable" : "public, max-age=86400"
        headers["x-content-type-options"] = "nosniff"
        if request.headers["if-none-match"]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) == true {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        if request.headers["if-none-match"] == nil, let since = request.headers["if-modified-since"],
           let date = StaticFiles.parseHTTPDate(since), Int(date.timeIntervalSince1970) >= mtime {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        let ext = (resolved as NSString).pathExtension.lowercased()
        headers["content-type"] = StaticFiles.types[ext] ?? "application/octet-stream"
        return HTTPResponse(status: .ok, headers: headers, body: data)
    }

    static func isSafeSegment(_ s: String) -> Bool {
        !s.isEmpty && !s.hasPrefix(".") && !s.contains("/") && !s.contains("\\") && !s.contains("\0") && s.utf8.count <= 255
    }

    static func httpDate(_ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f.string(from: d)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 § 5.6.7), read on bytes: `If-Modified-Since` is a
    /// stranger's text, and `DateFormatter` traps on some inputs.
    package static func parseHTTPDate(_ s: String) -> Date? {
        let b = Array(s.utf8)
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 32, b[7] == 32, b[11] == 32, b[16] == 32, b[19] == 58, b[22] == 58, b[25] == 32,
              b[26...] == Array("GMT".utf8)[...] else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var n = 0
            for k in r {
                guard (48...57).contains(b[k]) else { return nil }
                n = n * 10 + Int(b[k] - 48)
            }
            return n
        }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19), let minute = number(20..<22),
              let second = number(23..<25), let m = months.firstIndex(where: { Array($0.utf8)[...] == b[8..<11] }),
              (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        // Days since 1970 (Howard Hinnant's days_from_civil).
        let month = m + 1
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}
