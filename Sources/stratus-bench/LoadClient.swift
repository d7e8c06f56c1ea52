import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 keep-alive client on a blocking socket: the load generator for the API benchmark
/// (wrk is not on this machine). It sends prepared bytes and reads one response, Content-Length or chunked.
final class LoadClient {
    let fd: Int32
    /// Bytes are received straight into it: a response of 200 records is 100 KB, and the client's copies of it were
    /// a visible share of a 2-core machine that the servers it measures also run on.
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    /// Where unread bytes start and end in `buffer`.
    private var start = 0, end = 0
    /// For `stream`, whose bytes are handed on as they come.
    private lazy var scratch = [UInt8](repeating: 0, count: 256 * 1024)

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard r == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(fd) }

    static func request(_ method: String, _ target: String, body: Data? = nil, headers: [String: String] = [:]) -> [UInt8] {
        var s = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (k, v) in headers { s += "\(k): \(v)\r\n" }
        if let body { s += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        s += "\r\n"
        return Array(s.utf8) + (body.map(Array.init) ?? [])
    }

    private func fill() throws {
        if start == end { start = 0; end = 0 }
        if buffer.count - end < 64 * 1024 {
            // Little room left: the unread bytes move to the front, and the buffer doubles when they fill half of it.
            let unread = end - start
            if start > 0 { buffer.withUnsafeMutableBytes { b in _ = memmove(b.baseAddress!, b.baseAddress! + start, unread) } }
            start = 0
            end = unread
            if unread > buffer.count / 2 { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        }
        let n = buffer.withUnsafeMutableBytes { b in recv(fd, b.baseAddress! + end, b.count - end, 0) }
        guard n > 0 else { throw POSIXError(.ECONNRESET) }
        end += n
    }

    private var available: Int { end - start }

    private func take(_ n: Int) -> ArraySlice<UInt8> {
        defer { start += n }
        return buffer[start..<start + n]
    }

    /// Sends one request and returns (status, body).
    func send(_ request: [UInt8]) throws -> (Int, [UInt8]) {
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw POSIXError(.EPIPE) }
            sent += n
        }
        var headEnd: Int?
        while headEnd == nil {
            if let r = find(crlfcrlf: true) { headEnd = r + 4 } else { try fill() }
        }
        // The head read on bytes: the client's own parsing must not be a visible share of the figures it measures.
        let (status, contentLength) = Self.statusAndLength(buffer[start..<headEnd!])
        start = headEnd!
        if let n = contentLength {
            while available < n { try fill() }
            return (status, Array(take(n)))
        }
        var body: [UInt8] = []
        while true {
            var lineEnd = find(crlfcrlf: false)
            while lineEnd == nil { try fill(); lineEnd = find(crlfcrlf: false) }
            let size = Int(String(decoding: take(lineEnd! - start), as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
            start += 2
            while available < size + 2 { try fill() }
            body += take(size)
            start += 2
            if size == 0 { return (status, body) }
        }
    }

    /// Sends one request whose response never ends (an event stream) and hands every received chunk of bytes to
    /// `onBytes` until `until` says stop or the server closes the connection.
    func stream(_ request: [UInt8], until: () -> Bool, onBytes: ([UInt8]) -> Void) {
        var tv = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let sent = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return }
        while !until() {
            let n = recv(fd, &scratch, scratch.count, 0)
            if n == 0 { return }
            if n < 0 { if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue } else { return } }
            onBytes(Array(scratch[0..<n]))
        }
    }

    /// A response head's status code and Content-Length (nil when it has none: chunked).
    static func statusAndLength(_ head: ArraySlice<UInt8>) -> (Int, Int?) {
        func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
            var n = 0, seen = false
            for b in bytes {
                if b == 32 || b == 9 { if seen { break } else { continue } }
                guard b >= 48 && b <= 57 else { return seen ? n : nil }
                n = n * 10 + Int(b - 48)
                seen = true
            }
            return seen ? n : nil
        }
        let name = Array("content-length:".utf8)
        var status = 0, length: Int?
        var line = head.startIndex
        while line < head.endIndex {
            var end = line
            while end + 1 < head.endIndex && !(head[end] == 13 && head[end + 1] == 10) { end += 1 }
            if end + 1 >= head.endIndex { end = head.endIndex }
            if line == head.startIndex {
                // "HTTP/1.1 200 OK"
                if let sp = head[line..<end].firstIndex(of: 32) { status = digits(head[(sp + 1)..<end]) ?? 0 }
            } else if end - line > name.count,
                      zip(head[line..<(line + name.count)], name).allSatisfy({ ($0 | 0x20) == $1 }) {
                length = digits(head[(line + name.count)..<end])
            }
            line = end + 2
        }
        return (status, length)
    }

    /// The index of the next CRLF (or CRLFCRLF) at or after `start`.
    private func find(crlfcrlf: Bool) -> Int? {
        let need = crlfcrlf ? 4 : 2
        var i = start
        while i + need <= end {
            if buffer[i] == 13 && buffer[i + 1] == 10 && (!crlfcrlf || (buffer[i + 2] == 13 && buffer[i + 3] == 10)) { return i }
            i += 1
        }
        return nil
    }

    /// Runs `perConnection` requests on each of `connections` threads; returns wall seconds and per-request latencies (ms).
    static func run(port: UInt16, connections: Int, perConnection: Int, make: @escaping @Sendable (Int, Int) -> [UInt8],
                    check: @escaping @Sendable (Int, [UInt8]) -> Bool) throws -> Run {
        try run(ports: [port], connections: connections, perConnection: perConnection, make: make, check: check)
    }

    /// `run` over several servers: connection `c` goes to `ports[c % ports.count]` (round robin, as a load balancer would).
    static func run(ports: [UInt16], connections: Int, perConnection: Int, make: @escaping @Sendable (Int, Int) -> [UInt8],
                    check: @escaping @Sendable (Int, [UInt8]) -> Bool) throws -> Run {
        let group = DispatchGroup()
        let results = Results()
        let start = DispatchTime.now().uptimeNanoseconds
        for c in 0..<connections {
            group.enter()
            let t = Thread {
                defer { group.leave() }
                let cpu0 = threadCPUSeconds()
                defer { results.addCPU(threadCPUSeconds() - cpu0) }
                do {
                    let client = try LoadClient(port: ports[c % ports.count])
                    var local: [Double] = []
                    for i in 0..<perConnection {
                        let t0 = DispatchTime.now().uptimeNanoseconds
                        let (status, body) = try client.send(make(c, i))
                        local.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                        if !check(status, body) {
                            results.fail("status \(status): \(String(decoding: body.prefix(300), as: UTF8.self))")
                            return
                        }
                    }
                    results.add(local)
                } catch {
                    results.fail("\(error)")
                }
            }
            t.start()
        }
        group.wait()
        let (latencies, failure, cpu) = results.snapshot()
        if let failure { throw BenchFailure(failure) }
        return Run(seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, latencies: latencies,
                   clientCPUSeconds: cpu)
    }

    /// One load's wall seconds, per-request latencies (ms), and the processor time the load threads themselves
    /// spent (so a server in this process can be charged only its own).
    struct Run {
        var seconds: Double
        var latencies: [Double]
        var clientCPUSeconds: Double
    }

    /// The calling thread's processor time.
    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// What the load threads report, under a lock.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var latencies: [Double] = []
        private var failure: String?
        private var cpu = 0.0
        func add(_ l: [Double]) { lock.lock(); latencies += l; lock.unlock() }
        func addCPU(_ c: Double) { lock.lock(); cpu += c; lock.unlock() }
        func fail(_ f: String) { lock.lock(); failure = f; lock.unlock() }
        func snapshot() -> ([Double], String?, Double) {
            lock.lock()
            defer { lock.unlock() }
            return (latencies, failure, cpu)
        }
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

extension LoadClient: @unchecked Sendable {}
