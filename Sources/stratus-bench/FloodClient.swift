import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `stratus-bench flood-client` (started by `hostile`'s connection phase, in a process of its own so that its
/// sockets count against its own descriptor limit, not the server's): holds `--connections` idle TCP connections
/// to the server from `--addresses` loopback addresses, sending nothing, and opens a new one whenever the server
/// closes one (its refusal, its first-byte timeout, its making room), until `--seconds` pass. Prints how many are
/// open, and how many were opened in all, every second.
struct FloodClient: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "flood-client",
                                                    abstract: "Hold idle connections to a server (the hostile scenario's flood).",
                                                    shouldDisplay: false)
    @Option var port: UInt16
    @Option var connections: Int
    @Option(help: "The first of the loopback addresses to connect from (127.0.0.N).") var firstAddress = 2
    @Option var addresses = 32
    @Option var seconds: Double = 20

    func run() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        var fds = [Int32](repeating: -1, count: connections)
        var opened = 0
        func open(_ i: Int) {
            let a = firstAddress + i % addresses
            let source = "127.0.\(a / 250).\(a % 250 + 2)"
            fds[i] = Self.connect(port: port, from: source)
            if fds[i] >= 0 { opened += 1 }
        }
        for i in 0..<connections { open(i) }
        let end = Date().addingTimeInterval(seconds)
        var lastReport = Date.distantPast
        var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var scratch = [UInt8](repeating: 0, count: 4096)
        while Date() < end {
            _ = poll(&polls, nfds_t(polls.count), 100)
            for i in polls.indices {
                if polls[i].fd < 0 {
                    open(i)
                    polls[i] = pollfd(fd: fds[i], events: Int16(POLLIN), revents: 0)
                    continue
                }
                guard polls[i].revents != 0 else { continue }
                // The server answered (a 503, a 408) or closed: read what came, close, and connect again.
                _ = recv(polls[i].fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
                close(polls[i].fd)
                open(i)
                polls[i] = pollfd(fd: fds[i], events: Int16(POLLIN), revents: 0)
            }
            if Date().timeIntervalSince(lastReport) >= 1 {
                lastReport = Date()
                emit("open \(polls.filter { $0.fd >= 0 }.count) opened \(opened)")
            }
        }
        for p in polls where p.fd >= 0 { close(p.fd) }
    }

    /// A connection from `source`, or -1; a connect that would wait more than a second gives up.
    static func connect(port: UInt16, from source: String) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var tv = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0,
                socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
            && withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd,
                    $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
        if !ok { close(fd); return -1 }
        return fd
    }
}
