import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Caps glibc's malloc arenas at one per core. glibc gives a thread that finds the arenas busy one of its own, up to
/// eight per core, and an arena keeps what was freed in it: each thread the watcher adds while a worker is blocked
/// (see `ConnectionWorkers`) would leave an arena holding the answers it made. Only as many threads run at once as
/// there are cores, and each keeps a cache of its own (glibc's tcache), so sharing arenas among them costs little.
/// An operator's own `MALLOC_ARENA_MAX` or `glibc.malloc.arena_max` tunable wins.
///
/// Called first thing in `main`: glibc settles its cap the first time a thread finds more than eight arenas in use,
/// and never reads a cap set after that.
public enum MallocArenas {
    #if canImport(Glibc)
    /// glibc's `mallopt`, outside the module Swift imports; looked up once, by name.
    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = dlsym(nil, "mallopt").map {
        unsafeBitCast($0, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }
    /// `M_ARENA_MAX` of glibc's malloc.h.
    private static let arenaMax: Int32 = -8
    #endif

    /// Sets the cap unless the environment set one; returns whether it did.
    @discardableResult
    public static func limitToCores(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        #if canImport(Glibc)
        guard environment["MALLOC_ARENA_MAX"] == nil, !(environment["GLIBC_TUNABLES"] ?? "").contains("arena_max"),
              let mallopt else { return false }
        return mallopt(arenaMax, Int32(max(1, ProcessInfo.processInfo.activeProcessorCount))) == 1
        #else
        return false
        #endif
    }
}
