import Foundation
import StratusModel

/// Asset content: upload, read, and collection of what nothing references. On SQLite the content is a file in
/// the environment's asset directory; on PostgreSQL it is in the database (`asset_chunks`, 1 MB `bytea` chunks),
/// so that every node serves every asset and nothing is kept on a node's disk.
public struct AssetStore: EnvironmentPart {
    let core: EnvironmentDatabase
    let quota: QuotaStore

    /// The size of one stored chunk of asset content on PostgreSQL.
    static let assetChunkSize = 1 << 20

    /// Stores asset content and returns the value a record's ASSET field takes, with a receipt that lets
    /// `uploader` (and only them) reference it from records written through the API. The upload is charged to its
    /// uploader at once, and is theirs to attach to a record within `AssetUploads.lifetime` (see `AssetUploads`).
    /// Its bytes are promised against the environment's quota before a byte is written.
    public func uploadAsset(_ data: Data, uploader: String? = nil) throws(StratusError) -> AssetValue {
        guard data.count <= AssetFiles.maximumSize else {
            throw StratusError(.limitExceeded, "an asset holds at most \(AssetFiles.maximumSize / 1024 / 1024) MB")
        }
        let size = Int64(data.count)
        // A quick refusal before anything is staged; the charge itself is checked again in the transaction.
        if let uploader { try quota.checkUserQuota(uploader, adding: size) }
        let promised = try quota.reserve(size)
        var wrote: Int64 = 0
        defer { quota.settle(promised, wroteAssets: wrote) }
        let (base64, _) = AssetFiles.checksum(of: data)
        let (now, limit) = (WallClock.nowMillis(), core.userQuotaBytes)
        // The rows first (they may refuse: the uploader's cap), the content only once they are in.
        let register = { (db: any SQLSession) throws -> Bool in
            let fresh = try !AssetRows.exists(base64, db)
            try AssetRows.upsert(base64, size: data.count, at: now, db)
            if let uploader {
                let charged = try AssetUploads.hold(base64, size: size, uploader: uploader,
                                                    expiresAt: now + AssetUploads.lifetime, db)
                try UserUsage.charge(uploader, charged, limit: limit, db)
            }
            return fresh
        }
        let fresh: Bool
        if sqlite == nil {
            fresh = try write { db, _ in
                let fresh = try register(db)
                try Self.storeChunks(data, checksum: base64, db)
                return fresh
            }
        } else {
            let staged = try guarded { try files.stage(data) }
            defer { try? FileManager.default.removeItem(at: staged.temp) }
            // The rename happens inside the write transaction so it cannot interleave with a collection of the same
            // content.
            fresh = try write { db, _ in
                let fresh = try register(db)
                try self.files.commit(temp: staged.temp, final: staged.final)
                return fresh
            }
        }
        if fresh { wrote = size }
        return AssetValue(fileChecksum: base64, size: size, referenceChecksum: base64,
                          receipt: uploader.map { AssetReceipt.make(user: $0, checksum: base64, signer) })
    }

    /// Drops the uploads that waited longer than `AssetUploads.lifetime` for a record (their uploaders are charged
    /// no more), then removes the content nothing references and no upload holds. The server does it every minute
    /// for each open environment. Returns how many assets' content was removed.
    @discardableResult
    public func tendUploads(now: Int64 = WallClock.nowMillis()) throws(StratusError) -> Int {
        try write { db, _ in
            let refunds = try AssetUploads.expire(before: now, db)
            try UserUsage.add(refunds.mapValues { -$0 }, db)
        } as Void
        return try collectUnreferencedAssets(olderThan: now - AssetUploads.lifetime)
    }

    /// Writes content as `asset_chunks` rows unless they are there already (PostgreSQL).
    private static func storeChunks(_ data: Data, checksum: String, _ db: any SQLSession) throws {
        guard try !AssetChunks.exists(checksum, db) else { return }
        var n = 0
        for start in stride(from: 0, to: max(data.count, 1), by: Self.assetChunkSize) {
            let chunk = data.isEmpty ? Data() : data.subdata(in: data.startIndex + start..<data.startIndex + min(start + Self.assetChunkSize, data.count))
            try AssetChunks.insert(checksum, n: n, chunk, db)
            n += 1
        }
    }

    /// Stores the content of an asset whose `assets` row exists already (`stratus migrate` copies the rows, then
    /// the content). Content that does not hash to its checksum is refused.
    func storeAssetContent(_ data: Data, checksum: String) throws(StratusError) {
        guard AssetFiles.checksum(of: data).base64 == checksum else {
            throw StratusError(.internalError, "asset \(checksum.prefix(64)): its content does not match its checksum")
        }
        if sqlite == nil {
            try write { db, _ in try Self.storeChunks(data, checksum: checksum, db) }
        } else {
            let staged = try guarded { try files.stage(data) }
            defer { try? FileManager.default.removeItem(at: staged.temp) }
            try guarded { try files.commit(temp: staged.temp, final: staged.final) }
        }
    }

    public func assetContent(checksum: String) -> Data? {
        guard sqlite == nil else { return files.contents(checksum: checksum) }
        let chunks = try? read { db, _ in try AssetChunks.chunks(checksum, db) }
        guard let chunks, !chunks.isEmpty else { return nil }
        return chunks.reduce(into: Data()) { $0.append($1) }
    }

    public func assetPrefix(checksum: String, count: Int = 16) -> Data? {
        guard sqlite == nil else { return files.prefix(checksum: checksum, count: count) }
        return try? read { db, _ in
            try AssetChunks.prefix(checksum, count: count, db)
        }
    }

    /// Removes the content of assets no record refers to any more. `olderThan` spares fresh uploads
    /// that are about to be referenced.
    @discardableResult
    public func collectUnreferencedAssets(olderThan millis: Int64 = WallClock.nowMillis()) throws(StratusError) -> Int {
        let gone: [String] = try write { db, _ in
            let gone = try AssetRows.removeUnreferenced(before: millis, db)
            for c in gone { try self.removeContent(c, db) }
            return gone
        }
        return gone.count
    }

    func collectAssets(_ released: [String]) {
        guard !released.isEmpty else { return }
        let cutoff = WallClock.nowMillis()
        _ = try? write { db, _ in
            for c in Set(released) {
                if try !AssetRows.removeUnreferenced(before: cutoff, checksum: c, db).isEmpty {
                    try self.removeContent(c, db)
                }
            }
        }
    }

    private func removeContent(_ checksum: String, _ db: any SQLSession) throws {
        if sqlite == nil { try AssetChunks.remove(checksum, db) } else { files.remove(checksum: checksum) }
    }
}
