import Foundation
import GRDB
import StratusModel

/// Asset content: upload, read, and collection of what nothing references.
extension EnvironmentStore {
    /// Stores asset content and returns the value a record's ASSET field takes, with a receipt that lets
    /// `uploader` (and only them) reference it from records written through the API.
    public func uploadAsset(_ data: Data, uploader: String? = nil) throws(StratusError) -> AssetValue {
        guard data.count <= AssetStore.maximumSize else {
            throw StratusError(.quotaExceeded, "an asset holds at most \(AssetStore.maximumSize / 1024 / 1024) MB")
        }
        try checkQuota(adding: Int64(data.count))
        let (base64, _) = AssetStore.checksum(of: data)
        let staged = try guarded { try assets.stage(data) }
        defer { try? FileManager.default.removeItem(at: staged.temp) }
        // The rename happens inside the write transaction so it cannot interleave with a collection of the same content.
        try write { db, _ in
            try self.assets.commit(temp: staged.temp, final: staged.final)
            try db.execute(sql: """
                INSERT INTO assets(checksum, size, refs, created_at) VALUES (?, ?, 0, ?)
                ON CONFLICT(checksum) DO UPDATE SET created_at = excluded.created_at
                """, arguments: [base64, data.count, Clock.nowMillis()])
        }
        return AssetValue(fileChecksum: base64, size: Int64(data.count), referenceChecksum: base64,
                          receipt: uploader.map { AssetReceipt.make(user: $0, checksum: base64, signer) })
    }

    public func assetContent(checksum: String) -> Data? { assets.contents(checksum: checksum) }
    public func assetPrefix(checksum: String, count: Int = 16) -> Data? { assets.prefix(checksum: checksum, count: count) }

    /// Removes the content of assets no record refers to any more. `olderThan` spares fresh uploads
    /// that are about to be referenced.
    @discardableResult
    public func collectUnreferencedAssets(olderThan millis: Int64 = Clock.nowMillis()) throws(StratusError) -> Int {
        let gone: [String] = try write { db, _ in
            let gone = try String.fetchAll(db, sql: "DELETE FROM assets WHERE refs = 0 AND created_at <= ? RETURNING checksum", arguments: [millis])
            for c in gone { self.assets.remove(checksum: c) }
            return gone
        }
        return gone.count
    }

    func collectAssets(_ released: [String]) {
        guard !released.isEmpty else { return }
        let cutoff = Clock.nowMillis()
        _ = try? write { db, _ in
            for c in Set(released) {
                if try String.fetchOne(db, sql: "DELETE FROM assets WHERE checksum = ? AND refs = 0 AND created_at <= ? RETURNING checksum", arguments: [c, cutoff]) != nil {
                    self.assets.remove(checksum: c)
                }
            }
        }
    }
}
