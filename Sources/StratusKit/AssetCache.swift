import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where fetched assets are kept: one file per content checksum in a private cache directory, so a record's
/// `CKAsset.fileURL` names a local file as CloudKit's does, and the same bytes are downloaded once.
final class AssetCache: @unchecked Sendable {
    let directory: URL

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("StratusKit-assets-\(getuid())",
                isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
    }

    /// The local file for an asset with this checksum.
    func file(checksum: String) -> URL {
        let safe = String(checksum.map { $0.isLetter || $0.isNumber ? $0 : "_" }.prefix(128))
        return directory.appendingPathComponent(safe)
    }
}
