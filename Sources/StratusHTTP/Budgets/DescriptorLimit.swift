#if canImport(Glibc)
import Glibc
#endif

/// The process's file descriptor limit. Every connection holds a descriptor, and so do the databases, the logs and
/// every outbound request: a process that runs out of them cannot open a file, and libdispatch traps when that
/// happens to it. The server therefore raises its soft limit to the hard one at start and keeps a reserve of
/// descriptors out of the connections' reach (`ConnectionBudget`).
public enum DescriptorLimit {
    /// Raises the soft limit to the hard one (a no-op when they are equal) and returns the soft limit then in force.
    @discardableResult
    public static func raiseToHard() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        // RLIM_INFINITY and other huge values: a descriptor number is an Int32.
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    /// The soft limit now.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    /// Descriptors kept back from connections under a soft limit of `limit`: an eighth, and at least 256.
    public static func reserve(under limit: Int) -> Int { max(256, limit / 8) }
}
