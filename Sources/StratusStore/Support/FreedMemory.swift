import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Hands memory the process freed back to the operating system (glibc's `malloc_trim`): glibc keeps what a bulk
/// load or an index build freed for the process otherwise, so memory given up by one phase (a page cache made
/// smaller, a million records decoded on two threads) still counted against the next phase's peak.
public enum FreedMemory {
    #if canImport(Glibc)
    // `malloc_trim` is glibc's, outside the module Swift imports; looked up once, by name.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = dlsym(nil, "malloc_trim").map { unsafeBitCast($0,
            to: (@convention(c) (Int) -> Int32).self) }
    #endif

    public static func release() {
        #if canImport(Glibc)
        if let trim = mallocTrim { _ = trim(0) }
        #endif
    }
}
