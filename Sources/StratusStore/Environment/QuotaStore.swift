import Foundation
import StratusModel
import Synchronization

/// Storage quotas: an environment over its quota refuses new data (QUOTA_EXCEEDED), as CloudKit refuses writes
/// past an app's public quota or a user's iCloud quota. Deletes always go through, so space can be freed.
public final class QuotaStore: EnvironmentPart {
    let core: EnvironmentDatabase
    /// The last usage measured, and when (see `storageUsage`); what was written since is added to it.
    let usageCache = Mutex<(ContinuousClock.Instant, StorageUsage)?>(nil)
    /// Bytes promised to writes under way on this server, not yet in the usage measured: a write reserves before it
    /// writes, so writers at once cannot pass the quota together (see `reserve`).
    private let reserved = Mutex<Int64>(0)

    init(core: EnvironmentDatabase) {
        self.core = core
    }

    /// Current usage, measured at most once a second (a page count and a sum over the asset table).
    public func storageUsage() throws(StratusError) -> StorageUsage {
        let now = ContinuousClock.now
        if let (at, usage) = usageCache.withLock({ $0 }), now - at < .seconds(1) { return usage }
        let usage = try read { db, _ in
            let assets = try AssetRows.totalSize(db)
            // Not the asset content counted above (PostgreSQL keeps it in `asset_chunks`), nor the notification log,
            // which is held to a budget of its own and charged to no quota.
            let recordBytes = try StorageSize.bytes(db, excluding: ["asset_chunks", "notification_log"],
                                                    excludedBytes: { try NotificationLog.bytes(db) })
            return StorageUsage(recordBytes: recordBytes, assetBytes: assets, quotaBytes: core.quotaBytes)
        }
        usageCache.withLock { $0 = (now, usage) }
        return usage
    }

    /// The bytes `user`'s data takes here (see `UserUsage`).
    public func userUsage(_ user: String) throws(StratusError) -> Int64 {
        try read { s, _ in try UserUsage.bytes(user, s) }
    }

    /// Refuses what would take `user` past their cap, the environment's being checked too.
    func checkUserQuota(_ user: String, adding bytes: Int64) throws(StratusError) {
        guard let limit = core.userQuotaBytes else { return }
        let using = try userUsage(user)
        if using + bytes > limit { throw UserUsage.refusal(user, using: using, adding: bytes, limit: limit) }
    }

    func checkQuota(adding bytes: Int64 = 0) throws(StratusError) {
        guard core.quotaBytes != nil else { return }
        let usage = try storageUsage()
        if usage.exceeds(adding: bytes + reserved.withLock { $0 }) { throw Self.overQuota(usage) }
    }

    private static func overQuota(_ usage: StorageUsage) -> StratusError {
        StratusError(.quotaExceeded,
                     "this container environment is over its storage quota (\(usage.totalBytes / 1_048_576) MB of \((usage.quotaBytes ?? 0) / 1_048_576) MB): delete data or raise the quota")
    }

    /// Promises `bytes` to a write about to happen, or refuses (QUOTA_EXCEEDED) what would take the environment past
    /// its quota with the writes already promised. Returns what was promised, for `settle`.
    func reserve(_ bytes: Int64) throws(StratusError) -> Int64 {
        guard core.quotaBytes != nil, bytes > 0 else { return 0 }
        let usage = try storageUsage()
        return try reserved.withLock { (r: inout Int64) throws(StratusError) -> Int64 in
            guard !usage.exceeds(adding: r + bytes) else { throw Self.overQuota(usage) }
            r += bytes
            return bytes
        }
    }

    /// Ends a promise: the write is done (`wrote`, its assets' and records' bytes, now count in the usage until it is
    /// measured again) or failed (`wrote` zero).
    func settle(_ promised: Int64, wroteAssets: Int64 = 0, wroteRecords: Int64 = 0) {
        if promised > 0 { reserved.withLock { $0 -= promised } }
        guard wroteAssets != 0 || wroteRecords != 0 else { return }
        usageCache.withLock { c in
            guard var (at, usage) = c else { return }
            usage.assetBytes += wroteAssets
            usage.recordBytes += wroteRecords
            c = (at, usage)
        }
    }
}
