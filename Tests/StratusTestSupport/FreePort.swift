import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port free now, for a server that a test names before it starts (nginx, a page on another origin).
public enum FreePort {
    /// Chosen below Linux's ephemeral range (32768 and up), so that no server another test starts on port 0 is
    /// given it before its user binds it.
    public static func belowEphemeralRange() throws -> UInt16 {
        for _ in 0..<200 {
            let port = UInt16.random(in: 20000...32000)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 { return port }
        }
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "no free loopback port between 20000 and 32000"])
    }
}
