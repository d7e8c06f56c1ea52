import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks the kernel to drop its cached pages of every file under a directory (`posix_fadvise` DONTNEED: clean pages go,
/// no root needed), so that two sides of a figure start equally cold.
enum OSCache {
    /// Returns how many bytes of files it asked about.
    static func evict(under root: URL) -> Int {
        var total = 0
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey,
                .fileSizeKey])
        while let url = files?.nextObject() as? URL {
            guard let v = try? url.resourceValues(forKeys: [.isRegularFileKey,
                                                            .fileSizeKey]), v.isRegularFile == true else { continue }
            let fd = open(url.path, O_RDONLY)
            guard fd >= 0 else { continue }
            fdatasync(fd)
            _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
            close(fd)
            total += v.fileSize ?? 0
        }
        return total
    }
}
