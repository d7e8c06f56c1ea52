import Foundation
#if canImport(Glibc)
import Glibc
#endif
import StratusHTTP
import Synchronization

/// POSTs to `http://` webhook receivers over kept-alive sockets, on threads of its own. Foundation's URLSession
/// tops out near a thousand requests a second here (every request crosses its delegate queue and libcurl's
/// multi handle); a backend's receiver on the same network takes more. `https://` receivers still go through
/// URLSession, which brings TLS. Every connect, send and receive is bounded by the timeout.
final class PlainHTTPPoster: Sendable {
    let timeout: TimeInterval
    private let work: BlockingWork
    /// Idle connections per `host:port`, reused most recently idle first.
    private let idle = Mutex<[String: [Int32]]>([:])

    /// One pool for every server in the process (a test run starts dozens), started on first use.
    private static let sharedWork = BlockingWork(threads: 32, extra: 0, name: "stratus-http-post", runsInPlace: false)

    init(timeout: TimeInterval) {
        self.timeout = timeout
        work = Self.sharedWork
    }

    /// The status code, or an error saying why there was none.
    func post(_ url: URL, body: Data, headers: [(String, String)]) async -> Result<Int, PosterError> {
        guard let host = url.host, !host.isEmpty else { return .failure(PosterError("no host")) }
        let port = url.port ?? 80
        var target = url.path.isEmpty ? "/" : url.path
        if let q = url.query { target += "?" + q }
        var head = "POST \(target) HTTP/1.1\r\nHost: \(url.port.map { "\(host):\($0)" } ?? host)\r\nContent-Length: \(body.count)\r\nConnection: keep-alive\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        let request = Array((head + "\r\n").utf8) + Array(body)
        let poster = self
        return (try? await work.run { poster.exchange(host: host, port: port,
                                                      request: request) }) ?? .failure(PosterError("cancelled"))
    }

    private func exchange(host: String, port: Int, request: [UInt8]) -> Result<Int, PosterError> {
        let key = "\(host):\(port)"
        // A kept connection the receiver may have closed meanwhile: if it gives no answer, once more on a fresh one.
        if let fd = idle.withLock({ $0[key]?.popLast() }) {
            let answer = roundTrip(fd, request)
            if let status = answer.status {
                keepOrClose(fd, key, answer.reusable)
                return .success(status)
            }
            close(fd)
        }
        let fd: Int32
        switch connect(host: host, port: port) {
        case .success(let s): fd = s
        case .failure(let e): return .failure(e)
        }
        let answer = roundTrip(fd, request)
        keepOrClose(fd, key, answer.status != nil && answer.reusable)
        return answer.status.map { .success($0) } ?? .failure(PosterError(answer.problem ?? "no answer"))
    }

    private func keepOrClose(_ fd: Int32, _ key: String, _ reusable: Bool) {
        let kept = reusable && idle.withLock { idle -> Bool in
            guard idle[key, default: []].count < 64 else { return false }
            idle[key, default: []].append(fd)
            return true
        }
        if !kept { close(fd) }
    }

    private func connect(host: String, port: Int) -> Result<Int32, PosterError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints,
                          &list) == 0, let first = list else { return .failure(PosterError("cannot resolve \(host)")) }
        defer { freeaddrinfo(list) }
        var last = PosterError("cannot connect")
        var ai: UnsafeMutablePointer<addrinfo>? = first
        while let a = ai {
            defer { ai = a.pointee.ai_next }
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            // Non-blocking connect bounded by the timeout, then blocking I/O bounded by SO_RCVTIMEO/SO_SNDTIMEO.
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var r = Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen)
            if r != 0 && errno == EINPROGRESS {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                var err: Int32 = 0
                var len = socklen_t(MemoryLayout<Int32>.size)
                r = poll(&p, 1, Int32(timeout * 1000)) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
                        &len) == 0 && err == 0 ? 0 : -1
            }
            guard r == 0 else {
                close(fd)
                last = PosterError("cannot connect to \(host):\(port)")
                continue
            }
            _ = fcntl(fd, F_SETFL, flags)
            var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return .success(fd)
        }
        return .failure(last)
    }

    /// Sends the request and reads the whole response (so the connection can be reused); fails on anything the
    /// connection cannot be trusted after. The deadline bounds the exchange as a whole, not each read.
    struct Answer {
        var status: Int?
        var reusable = false
        var problem: String?
    }

    /// Writes the whole request; false when the connection failed.
    private static func sendAll(_ fd: Int32, _ request: [UInt8]) -> Bool {
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    private func roundTrip(_ fd: Int32, _ request: [UInt8]) -> Answer {
        let deadline = Date().addingTimeInterval(timeout)
        guard Self.sendAll(fd,
                           request) else { return Answer(problem: "no answer: the connection failed while sending") }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        func fill() -> Bool {
            guard Date() < deadline, buffer.count < 1 << 20 else { return false }
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return false }
            buffer += chunk[0..<n]
            return true
        }
        func find(_ pattern: [UInt8], from: Int) -> Int? {
            guard buffer.count >= pattern.count + from else { return nil }
            var i = from
            while i + pattern.count <= buffer.count {
                if buffer[i] == pattern[0] && Array(buffer[i..<i + pattern.count]) == pattern { return i }
                i += 1
            }
            return nil
        }
        var headEnd: Int?
        while headEnd == nil {
            headEnd = find([13, 10, 13, 10], from: 0)
            if headEnd == nil && !fill() { return Answer(problem: "no answer within \(Int(timeout)) s") }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self).lowercased()
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("http/1."), let status = Int(parts[1]) else { return Answer(problem: "not an HTTP answer") }
        let bodyStart = headEnd! + 4
        func header(_ name: String) -> String? {
            lines.dropFirst().first { $0.hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
        if header("connection") == "close" { return Answer(status: status) }
        // A receiver's numbers are bounded before they are added to anything: the answer is read to 1 MiB at most.
        if let length = header("content-length").flatMap(Int.init) {
            guard length >= 0, length <= 1 << 20 else { return Answer(status: status) }
            while buffer.count < bodyStart + length { guard fill() else { return Answer(status: status) } }
            return Answer(status: status, reusable: true)
        }
        if header("transfer-encoding")?.contains("chunked") == true {
            var at = bodyStart
            while true {
                var lineEnd = find([13, 10], from: at)
                while lineEnd == nil { guard fill() else { return Answer(status: status) }; lineEnd = find([13, 10],
                        from: at) }
                let sizeText = buffer[at..<lineEnd!].prefix { $0 != UInt8(ascii: ";") }
                guard let size = ASCIIHex.integer(sizeText, maxDigits: 5) else { return Answer(status: status) }
                at = lineEnd! + 2 + size + 2
                while buffer.count < at { guard fill() else { return Answer(status: status) } }
                if size == 0 { return Answer(status: status, reusable: true) }
            }
        }
        // No length: the body runs to the end of the connection (204 and 304 have none).
        if status == 204 || status == 304 { return Answer(status: status, reusable: true) }
        return Answer(status: status)
    }

    struct PosterError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }
}
