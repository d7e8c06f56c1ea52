import Crypto
import Foundation
import StratusModel

/// Asset content on disk, addressed by the SHA-256 of its bytes: `<root>/ab/cdef…` (hex).
/// Files are written to a temporary name and renamed, so a reader never sees half a file.
struct AssetFiles: Sendable {
    let root: URL

    static let maximumSize = 50 * 1024 * 1024

    func path(forHex hex: String) -> URL {
        root.appendingPathComponent(String(hex.prefix(2))).appendingPathComponent(String(hex.dropFirst(2)))
    }

    static func checksum(of data: Data) -> (base64: String, hex: String) {
        let digest = Data(SHA256.hash(data: data))
        return (digest.base64EncodedString(), digest.map { String(format: "%02x", $0) }.joined())
    }

    /// The hex file name for a base64 checksum, or nil when the checksum is not one of ours.
    static func hex(fromChecksum checksum: String) -> String? {
        guard let d = Data(base64Encoded: checksum), d.count == 32 else { return nil }
        return d.map { String(format: "%02x", $0) }.joined()
    }

    /// Writes the bytes under a temporary name; `commit` renames them into place.
    func stage(_ data: Data) throws -> (temp: URL, final: URL) {
        let hex = AssetFiles.checksum(of: data).hex
        let final = path(forHex: hex)
        try PrivateFiles.directory(final.deletingLastPathComponent())
        let temp = root.appendingPathComponent(".tmp-\(UUID().uuidString)")
        try data.write(to: temp)
        return (temp, final)
    }

    func commit(temp: URL, final: URL) throws {
        if rename(temp.path, final.path) != 0 {
            throw StratusError(.internalError, "could not store asset content (errno \(errno))")
        }
    }

    func remove(checksum: String) {
        guard let hex = AssetFiles.hex(fromChecksum: checksum) else { return }
        try? FileManager.default.removeItem(at: path(forHex: hex))
    }

    func contents(checksum: String) -> Data? {
        guard let hex = AssetFiles.hex(fromChecksum: checksum) else { return nil }
        return try? Data(contentsOf: path(forHex: hex))
    }

    /// The first bytes of an asset (enough to tell its type) without reading the whole file.
    func prefix(checksum: String, count: Int) -> Data? {
        guard let hex = AssetFiles.hex(fromChecksum: checksum), let h = try? FileHandle(forReadingFrom: path(forHex: hex)) else { return nil }
        defer { try? h.close() }
        return try? h.read(upToCount: count)
    }
}

#if canImport(Glibc)
import Glibc
#endif
