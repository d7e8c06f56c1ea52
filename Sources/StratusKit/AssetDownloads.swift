import Foundation
import StratusJSON
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The assets a batch of decoded records refers to, downloaded after decoding (before the records reach the app).
final class AssetDownloads {
    let cache: AssetCache
    private(set) var pending: [(url: URL, file: URL)] = []

    init(cache: AssetCache) { self.cache = cache }

    /// The asset's local file; queued for download when it is not there yet.
    func localFile(for receipt: WireObject) -> URL? {
        guard let checksum = receipt["fileChecksum"]?.string else { return nil }
        let file = cache.file(checksum: checksum)
        if !FileManager.default.fileExists(atPath: file.path), let s = receipt["downloadURL"]?.string, let url = URL(string: s) {
            if !pending.contains(where: { $0.file == file }) { pending.append((url, file)) }
        }
        return file
    }

    /// Downloads every queued asset into the cache (written to a temporary name, then moved into place).
    func download(with services: WebServices) async throws {
        for (url, file) in pending {
            var req = URLRequest(url: url)
            req.timeoutInterval = services.configuration.timeoutIntervalForRequest
            let (data, http) = try await services.perform(req)
            guard http.statusCode == 200 else { throw CKError.make(.assetNotAvailable,
                                                                   "the asset could not be downloaded (HTTP \(http.statusCode))") }
            let tmp = file.appendingPathExtension("part-\(UUID().uuidString)")
            try data.write(to: tmp)
            _ = try? FileManager.default.replaceItemAt(file, withItemAt: tmp)
            if !FileManager.default.fileExists(atPath: file.path) { try? FileManager.default.moveItem(at: tmp,
                    to: file) }
        }
        pending.removeAll()
    }
}
