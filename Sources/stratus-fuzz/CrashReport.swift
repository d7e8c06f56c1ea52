import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the fuzzer was doing when the process died: the target and the input it was running, written by a signal
/// handler (with `write` only, which is safe there) to a file the parent reads. A trap in Swift code is a SIGILL or
/// SIGTRAP; the handler writes the report, then lets the signal kill the process as it would have, so the parent
/// sees the same death a server would have died. A hang is reported by a watchdog thread the same way.
enum CrashReport {
    static let capacity = 4 << 20
    nonisolated(unsafe) static var input = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    nonisolated(unsafe) static var length = 0
    nonisolated(unsafe) static var header = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    nonisolated(unsafe) static var headerLength = 0
    nonisolated(unsafe) static var fd: Int32 = -1
    /// Inputs run so far: the watchdog reports a hang when it stops moving.
    static let runs = Atomic<Int>(0)

    /// Opens the report file and installs the handlers.
    static func install(path: String, hangSeconds: Int) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        for s in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] { signal(s, crashed) }
        Thread {
            var last = -1, still = 0
            while true {
                sleep(1)
                let now = runs.load(ordering: .relaxed)
                still = now == last ? still + 1 : 0
                last = now
                if still >= hangSeconds {
                    writeReport(kind: "hang", signal: 0)
                    _exit(3)
                }
            }
        }.start()
    }

    /// Names the target whose inputs follow.
    static func setTarget(_ name: String) {
        let bytes = Array("target=\(name)\n".utf8.prefix(255))
        headerLength = 0
        bytes.withUnsafeBufferPointer { header.update(from: $0.baseAddress!, count: $0.count) }
        headerLength = bytes.count
    }

    /// Remembers the input about to run (before it runs: the handler has no other way to know it).
    @inline(__always)
    static func set(_ bytes: [UInt8]) {
        length = 0
        let n = min(bytes.count, capacity)
        bytes.withUnsafeBufferPointer { if n > 0 { input.update(from: $0.baseAddress!, count: n) } }
        length = n
    }

    static func ran() { runs.add(1, ordering: .relaxed) }

    fileprivate static func writeReport(kind: StaticString, signal: Int32) {
        guard fd >= 0 else { return }
        _ = write(fd, header, headerLength)
        _ = write(fd, kind.utf8Start, kind.utf8CodeUnitCount)
        var digits: [UInt8] = [UInt8(ascii: " "), UInt8(ascii: "0") + UInt8(signal / 10 % 10),
                               UInt8(ascii: "0") + UInt8(signal % 10), 10]
        _ = write(fd, &digits, 4)
        _ = write(fd, input, length)
        fsync(fd)
    }
}

/// The signal handler: no allocation, no locks, only `write`.
private func crashed(_ sig: Int32) {
    CrashReport.writeReport(kind: "crash", signal: sig)
    signal(sig, SIG_DFL)
    raise(sig)
}
