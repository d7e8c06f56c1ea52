import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A deliberately broken HTTP server on a loopback socket: it reads a request and answers the way a failing
/// server or proxy might — unreadable JSON, an HTML 502, a body cut off mid-way, or nothing at all — so the
/// client's handling of each is tested against real sockets.
final class MisbehavingServer: @unchecked Sendable {
    enum Behaviour: Sendable {
        case answer(status: Int, contentType: String, body: String)
        case cutOff
        case hang
    }

    let port: UInt16
    private let fd: Int32
    private let behaviour: Behaviour
    private var clients: [Int32] = []
    private let lock = NSLock()

    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(fd, 16)
        var bound = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = UInt16(bigEndian: bound.sin_port)
        let t = Thread { [self] in serve() }
        t.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    private func serve() {
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return }
            lock.lock()
            clients.append(c)
            lock.unlock()
            Thread { [self] in handle(c) }.start()
        }
    }

    private func handle(_ c: Int32) {
        // Read the head and whatever body arrives with it; the answer does not depend on it.
        var buffer = [UInt8](repeating: 0, count: 65536)
        _ = recv(c, &buffer, buffer.count, 0)
        func send(_ s: String) { _ = s.utf8CString.withUnsafeBufferPointer { Glibc.send(c, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) } }
        switch behaviour {
        case .answer(let status, let type, let body):
            send("HTTP/1.1 \(status) X\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            close(c)
        case .cutOff:
            send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n{\"records\":[{\"recordName\":\"a\",")
            close(c)
        case .hang:
            break
        }
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        lock.lock()
        for c in clients { close(c) }
        lock.unlock()
    }
}
