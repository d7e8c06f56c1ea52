import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A deliberately plain HTTP client on a blocking POSIX socket, so tests can send exactly the bytes they
/// want (malformed, oversized, slow) and see exactly what comes back.
public final class RawClient: @unchecked Sendable {
    let fd: Int32
    /// Bytes received past the last response read (pipelined responses can arrive in one segment).
    private var pending = Data()

    /// `from`: the loopback address to connect from (127.0.0.2 is another client than 127.0.0.1 to the server).
    /// `receiveBuffer`: a small one makes a client that reads slowly look so to the server at once.
    public init(port: UInt16, receiveTimeout: Double = 30, from source: String? = nil, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard bound == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard r == 0 else { throw POSIXError(.ECONNREFUSED) }
        var tv = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - Double(Int(receiveTimeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    /// Drops the connection as a client that goes away would (the socket stays owned until deinit).
    public func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Sends bytes; false once the server has closed its side.
    @discardableResult
    public func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { buf in
            var sent = 0
            while sent < buf.count {
                let n = Glibc.send(fd, buf.baseAddress! + sent, buf.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                sent += n
            }
            return true
        }
    }

    public func send(_ s: String) { send(Data(s.utf8)) }

    /// Reads until the server closes or the timeout passes.
    public func readAll() -> Data {
        var out = Data()
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }

    /// Reads what arrives until `done` holds for everything read so far, the server closes, or the receive timeout
    /// passes; on a thread of its own (see `response()`).
    public func read(until done: @escaping @Sendable (String) -> Bool) async -> String {
        await withCheckedContinuation { c in
            Thread {
                var text = String(decoding: self.pending, as: UTF8.self)
                self.pending = Data()
                var buf = [UInt8](repeating: 0, count: 65536)
                while !done(text) {
                    let n = recv(self.fd, &buf, buf.count, 0)
                    if n <= 0 { break }
                    text += String(decoding: buf[0..<n], as: UTF8.self)
                }
                c.resume(returning: text)
            }.start()
        }
    }

    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
    }

    /// Blocking reads run on a thread of their own: blocking one of Swift's few cooperative threads would starve the
    /// very server the test is waiting for.
    public func response(head isHead: Bool = false) async -> Response? {
        await withCheckedContinuation { c in Thread { c.resume(returning: self.readResponse(head: isHead)) }.start() }
    }

    public func all() async -> Data {
        await withCheckedContinuation { c in Thread { c.resume(returning: self.readAll()) }.start() }
    }

    /// Reads exactly one response (Content-Length framed; a response to HEAD has none).
    public func readResponse(head isHead: Bool = false) -> Response? {
        var data = pending
        pending = Data()
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            if let range = data.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<range.lowerBound], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                var headers: [String: String] = [:]
                for l in lines { if let c = l.firstIndex(of: ":") { headers[l[..<c].lowercased()] = l[l.index(after: c)...].trimmingCharacters(in: .whitespaces) } }
                let length = isHead ? 0 : Int(headers["content-length"] ?? "0") ?? 0
                while data.count - range.upperBound < length {
                    let n = recv(fd, &buf, buf.count, 0)
                    if n <= 0 { return nil }
                    data.append(contentsOf: buf[0..<n])
                }
                let body = data[range.upperBound..<(range.upperBound + length)]
                pending = Data(data[(range.upperBound + length)...])
                return Response(status: Int(statusLine[1]) ?? 0, headers: headers, body: Data(body))
            }
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { return nil }
            data.append(contentsOf: buf[0..<n])
        }
    }
}
