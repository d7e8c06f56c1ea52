import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for tests. Foundation's `Process.run` on Linux (Swift 6.3.1) reads
/// past a `dirent` while it lists `/proc/self/fd`, and crashes (signal 11 in `memmove`) about one run in three
/// once the test process holds more than about 1,300 descriptors (swiftlang/swift-corelibs-foundation#5472).
/// The subset of `Process` the tests use: executable, arguments, environment, working directory, standard
/// streams as `Pipe`s or `FileHandle`s, run, wait, terminate. The child keeps only descriptors 0–2.
public final class ChildProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String] = []
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?
    public private(set) var processIdentifier: Int32 = 0
    private let state = NSLock()
    /// The raw wait status, once reaped.
    private var exitStatus: Int32?

    public init() {}

    /// The exit code, or the signal's number when a signal ended it (as `Process` reports them).
    public var terminationStatus: Int32 { state.withLock { exitStatus.map { $0 & 0x7f != 0 ? $0 & 0x7f : ($0 >> 8) & 0xff } ?? 0 } }

    public enum TerminationReason: Sendable { case exit, uncaughtSignal }
    public var terminationReason: TerminationReason { state.withLock { (exitStatus ?? 0) & 0x7f != 0 ? .uncaughtSignal : .exit } }

    public var isRunning: Bool {
        state.withLock {
            guard exitStatus == nil, processIdentifier > 0 else { return false }
            var status: Int32 = 0
            let r = waitpid(processIdentifier, &status, WNOHANG)
            if r == processIdentifier { exitStatus = status; return false }
            return r == 0
        }
    }

    private static func descriptor(_ stream: Any?, reading: Bool) -> Int32? {
        if let p = stream as? Pipe { return reading ? p.fileHandleForReading.fileDescriptor : p.fileHandleForWriting.fileDescriptor }
        if let h = stream as? FileHandle { return h.fileDescriptor }
        return nil
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// glibc ≥ 2.34 has it; Swift's Glibc module does not declare it.
    private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let chdir: ChangeDirectory? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: ChangeDirectory.self) }

    public func run() throws {
        guard let executable = executableURL?.path else { throw CocoaError(.fileNoSuchFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target, reading) in [(standardInput, Int32(0), true), (standardOutput, Int32(1), false), (standardError, Int32(2), false)] {
            if let fd = Self.descriptor(stream, reading: reading) { posix_spawn_file_actions_adddup2(&actions, fd, target) }
        }
        if let cwd = currentDirectoryURL?.path {
            guard let chdir = Self.chdir else { throw CocoaError(.featureUnsupported) }
            _ = chdir(&actions, cwd)
        }
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in env { free(p) } }
        // The test runner's threads block SIGTERM and ignore SIGPIPE, and a child would inherit both: `terminate()`
        // would then never end a child that does not install its own handler (a Python script).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for s in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let r = posix_spawn(&pid, executable, &actions, &attributes, argv, env)
        guard r == 0 else { throw POSIXError(POSIXErrorCode(rawValue: r) ?? .EIO) }
        processIdentifier = pid
        // The child has its ends of the pipes; the parent's copies must go, or a reader never sees the end.
        if let p = standardInput as? Pipe { try? p.fileHandleForReading.close() }
        if let p = standardOutput as? Pipe { try? p.fileHandleForWriting.close() }
        if let p = standardError as? Pipe { try? p.fileHandleForWriting.close() }
    }

    public func waitUntilExit() {
        guard processIdentifier > 0 else { return }
        if state.withLock({ exitStatus != nil }) { return }
        var status: Int32 = 0
        while true {
            let r = waitpid(processIdentifier, &status, 0)
            if r == processIdentifier { break }
            if r == -1 && errno != EINTR {
                // Reaped by `isRunning` on another thread meanwhile.
                return
            }
        }
        state.withLock { exitStatus = status }
    }

    public func terminate() {
        guard processIdentifier > 0, state.withLock({ exitStatus == nil }) else { return }
        kill(processIdentifier, SIGTERM)
    }
}
