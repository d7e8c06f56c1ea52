import Foundation
import StratusModel
import Synchronization

/// The notification log (an outbox per user) and the web courier's tokens.
public final class NotificationStore: EnvironmentPart {
    let core: EnvironmentDatabase
    let subscriptions: SubscriptionStore
    let webhooks: WebhookStore
    /// Notifications and webhook deliveries created here since the process started.
    public let notificationCounter = NotificationCounter()
    /// When the log is next held to its retention and budget (see `tendLog`).
    let upkeep = NotificationLogUpkeep()
    /// `aps` texts the log references, by reference (they never change under one).
    let apsCache = ExpiringCache<String, String>(lifetime: .seconds(600), capacity: 10_000)
    /// How far each web courier token has been answered, ahead of what is saved (see `courierDelivered`).
    let courierProgress = Mutex<(answered: [String: Int64], dirty: Set<String>, savedAt: ContinuousClock.Instant)>(([:],
            [], .now))

    /// Rung when a commit appends notifications: SSE streams, courier polls and the webhook deliverer wait on it.
    /// The server's one bell, shared by every environment.
    public var bell: NotificationBell { core.bell }
    /// Retention, subscription caps and the notification log's budget.
    public var notificationPolicy: NotificationPolicy { core.notificationPolicy }
    /// How long the notification log keeps a notification (milliseconds).
    public var notificationRetention: Int64 { core.notificationPolicy.retention }
    /// The bell key of a user's notifications here: listeners take `bell.rings(key)` before reading the log.
    public func bellKey(_ user: String) -> String { NotificationBell.key(container, environment, user: user) }
    /// Spelled into every notification ID of this environment (see `NotificationBatch.nid`).
    var nidSalt: UInt64 { core.nidSalt }

    init(core: EnvironmentDatabase, subscriptions: SubscriptionStore, webhooks: WebhookStore) {
        self.core = core
        self.subscriptions = subscriptions
        self.webhooks = webhooks
    }

    /// What a write hands its changes to, or nil when no subscription or webhook exists (then a write does no
    /// notification work at all).
    func handOff(_ db: any SQLSession) throws -> NotificationHandOff? {
        let index = try subscriptions.index(db)
        let hooks = try webhooks.liveWebhooks(db)
        return index.isEmpty && hooks.isEmpty ? nil : NotificationHandOff(index: index, webhooks: hooks, store: self)
    }

    /// Tells the fan-out this environment's outbox has changes (a write committed some).
    func fanOutDue() { core.fanOut.schedule(self) }

    /// Whether writes handed off changes not fanned out yet.
    public func hasHandedOffChanges() -> Bool {
        (try? read { db, _ in try !NotificationOutboxRows.isEmpty(db) }) ?? false
    }

    /// What one turn of the fan-out does at most: changes taken, subscriptions looked at (a change that concerns
    /// more goes on in the next turns), and time spent before it commits.
    static let changesPerTurn = 32
    static let subscriptionsPerTurn = 500
    static let turnBudget: Duration = .milliseconds(1)

    /// One turn of the fan-out (see `NotificationFanOut`): the oldest changes of the outbox, matched and written as
    /// notifications in one transaction that also takes them out of it (or, for a change left half done, keeps how
    /// far it got), within the limits above. Returns whether the outbox has more. A failure leaves the changes for
    /// the next turn.
    func fanOutTurn() -> Bool {
        do {
            let (more, spent) = try core.fanOutWrite { db, catalog -> (Bool, Bool) in
                let rows = try NotificationOutboxRows.oldest(Self.changesPerTurn, db)
                guard !rows.isEmpty else { return (false, false) }
                var outbox = NotificationOutbox(index: try subscriptions.index(db), store: self)
                let start = ContinuousClock.now
                var done: [Int64] = []
                var unfinished = false
                for row in rows {
                    // A change this version cannot read (never written by it) is dropped rather than stop every one
                    // after it.
                    if let change = NotificationChange(row.change), let stopped = try apply(change, row: row.id,
                            to: &outbox, resumeAfter: row.resumeAfter, catalog: catalog, db) {
                        try NotificationOutboxRows.resume(row.id, after: stopped, db)
                        unfinished = true
                        break
                    }
                    done.append(row.id)
                    if ContinuousClock.now - start >= Self.turnBudget || outbox.looked >= Self.subscriptionsPerTurn { break }
                }
                try NotificationOutboxRows.remove(done, db)
                try outbox.finish(db)
                return (unfinished || done.count < rows.count || rows.count == Self.changesPerTurn,
                        !outbox.spent.isEmpty)
            }
            if spent { subscriptions.subscriptionsChanged() }
            tendLog()
            return more
        } catch {
            return false
        }
    }

    /// The order of the subscriptions of the change the fan-out is in the middle of (by its outbox row).
    private let plan = Mutex<(row: Int64, plan: NotificationOutbox.Plan)?>(nil)

    /// A change's notifications, within what is left of the turn's subscriptions; where it stopped, if it did.
    private func apply(_ change: NotificationChange, row: Int64, to outbox: inout NotificationOutbox,
                       resumeAfter: String?, catalog: Catalog,
                       _ db: any SQLSession) throws -> String? {
        switch change.kind {
        case .record(let before, let after, let zoneRow):
            var kept = plan.withLock { $0?.row == row ? $0?.plan : nil }
            let stopped = try outbox.recordChanged(before: before.map { Self.placed($0, change.zone) },
                                                   after: after.map { Self.placed($0, change.zone) },
                                                   zone: change.zone, database: change.database, catalog: catalog, zoneRow: zoneRow, resumeAfter: resumeAfter,
                                                   limit: max(1,
                                                              Self.subscriptionsPerTurn - outbox.looked), plan: &kept, db)
            plan.withLock { $0 = stopped != nil ? kept.map { (row, $0) } : nil }
            return stopped
        case .zone(let deleted):
            try outbox.zoneChanged(change.zone, database: change.database, deleted: deleted, db)
            return nil
        }
    }

    private static func placed(_ r: StoredRecord, _ zone: ZoneID) -> StoredRecord {
        var r = r
        r.zoneID = zone
        return r
    }

    /// Fans out everything handed off so far, here and now (tools, and tests that read the log right after a write;
    /// the server's fan-out does it on its own within moments).
    public func deliverHandedOff() {
        while fanOutTurn() {}
    }

    /// Holds the log to its retention (at most once a minute: notifications past it, and `aps` texts no one can
    /// reference any more) and to its whole budget (see `NotificationLogUpkeep`). Called after a write that may
    /// have notified, never inside one: it runs transactions of its own, holding the environment's write alone, so
    /// it takes other recipients' rows without crossing a writer's locks. A failure leaves it to the next call.
    func tendLog() {
        let now = WallClock.nowMillis()
        let policy = notificationPolicy
        guard let due = upkeep.claim(now: now, retention: policy.retention,
                                     budget: policy.logBudgetBytes) else { return }
        var measured: Int64?
        defer { upkeep.finish(measured: measured) }
        do {
            if due.expire {
                try write { db, _ in
                    try NotificationLog.expire(before: now - policy.retention, db)
                    try NotificationInfos.sweep(live: try subscriptions.index(db).references, now: now,
                                                retention: policy.retention, db)
                }
            }
            let kept = try NotificationLog.keepToBudget(policy, write: { body in try write { db, _ in try body(db) } },
                                                        measure: { try read { db, _ in try NotificationLog.bytes(db) } })
            if kept.evicted > 0 { notificationCounter.add(notifications: 0, webhooks: 0, evicted: kept.evicted) }
            measured = kept.bytes
        } catch {}
    }

    /// A user's notifications after position `afterID` (0: from the oldest kept), oldest first. A position older
    /// than the retention — the notifications after it are gone — is CloudKit's expired-token answer.
    /// With `skippingExpired` (the web courier, whose token must not stay stuck), a position past the retention
    /// reads on from the oldest notification kept instead.
    public func entries(for user: String, after afterID: Int64, limit: Int = 200,
                        skippingExpired: Bool = false) throws(StratusError) -> [StoredNotification] {
        try notificationPage(for: user, after: afterID, limit: limit, skippingExpired: skippingExpired).notifications
    }

    /// The same, with the position the read got through: the last notification's when the page is full, else the
    /// end of the user's newest batch.
    public func notificationPage(for user: String, after afterID: Int64, limit: Int = 200,
                                 skippingExpired: Bool = false) throws(StratusError) -> (notifications: [StoredNotification], through: Int64) {
        try read { db, _ in
            let expiredThrough = try NotificationLog.expiredThrough(user, db)
            var afterID = afterID
            // A position in the last dropped batch still counts: what came after it there was committed with it.
            let expiredBefore = NotificationBatch.batch(of: expiredThrough) << NotificationBatch.indexBits
            if afterID < expiredBefore && skippingExpired { afterID = expiredThrough }
            if afterID < expiredBefore {
                throw StratusError(.changeTokenExpired,
                                   "notifications after this position are no longer kept (older than \(notificationRetention / 86_400_000) days, or past the log's budget for this user): start from now")
            }
            // The user's newest batch first: their batches commit in order, so everything up to it is in this read.
            let newest = try NotificationLog.lastBatch(of: user, db)
            var out: [StoredNotification] = []
            // A few rows at a time, until the page is full: a row may hold hundreds of thousands of notifications, and
            // a
            // page of 50 reads what it needs, not 51 rows. Rows are read whole and decoded after: a PostgreSQL result
            // is
            // not left open while other work runs.
            var from = NotificationBatch.batch(of: afterID)
            var more = true
            while more && out.count < limit {
                let rows = try NotificationLog.rows(of: user, from: from, through: newest, limit: 4, db)
                more = rows.count == 4
                from = (rows.last?.batch ?? from) + 1
                for row in rows where out.count < limit {
                    // Only what the page takes is built: a row may hold a 200,000-notification group.
                    let skip = row.batch == NotificationBatch.batch(of: afterID) ? Int(afterID & Int64(NotificationBatch.maximumPerBatch - 1)) : -1
                    for (i, e) in NotificationBatch.entries(row.entries, of: nil, after: skip,
                                                            limit: limit - out.count) {
                        let position = NotificationBatch.position(batch: row.batch, index: i)
                        guard position > afterID, out.count < limit else { continue }
                        let nid = NotificationBatch.nid(salt: nidSalt, user: user, position: position)
                        out.append(StoredNotification(id: position, notificationID: nid,
                                                      subscriptionID: e.subscriptionID,
                                                      scope: DatabaseScope(rawValue: e.scope) ?? .private, recordName: e.recordName, reason: e.reason,
                                                      createdAt: row.createdAt,
                                                      payload: e.payload(nid: nid,
                                                              aps: try NotificationInfos.resolve(e.aps, cache: apsCache,
                                                              db), container: container, environment: environment)))
                    }
                }
            }
            let through = out.count == limit ? out.last?.id ?? afterID : max(afterID,
                    newest == 0 ? afterID : NotificationBatch.end(of: newest))
            return (out, through)
        }
    }

    /// `user`'s newest notification id (0 when none): where a new courier token, stream or device of theirs
    /// starts, so it hears what comes next.
    public func lastNotificationID(for user: String) throws(StratusError) -> Int64 {
        try read { db, _ in
            let batch = try NotificationLog.lastBatch(of: user, db)
            return batch == 0 ? 0 : NotificationBatch.end(of: batch)
        }
    }

    /// The same for each of `users`, in one read (the APNs deliverer's pass over an environment's devices).
    public func lastNotificationIDs(for users: [String]) throws(StratusError) -> [String: Int64] {
        try read { db, _ in try NotificationLog.lastBatches(of: users,
                                                            db).mapValues { $0 == 0 ? 0 : NotificationBatch.end(of: $0) } }
    }

    // MARK: web courier tokens

    /// Web courier tokens one user keeps at once: a new one past it ends the oldest (a browser makes one per page
    /// that listens, and a loop of `tokens/create` would otherwise make rows without end).
    public static let maximumCourierTokensPerUser = 64

    /// Keeps a web courier token for `user`, as its hash: it works until `expiresAt`, or until the sign-in it was
    /// made with (its family, `madeWith`) signs out. It hears what happens from now on.
    public func createCourierToken(_ token: String, user: String, expiresAt: Int64,
                                   madeWith webToken: String? = nil) throws(StratusError) {
        let start = try lastNotificationID(for: user)
        try write { db, _ in
            try CourierTokens.keep(Secrets.tokenHash(token), user: user, from: start, expiresAt: expiresAt,
                                   webToken: webToken,
                                   keep: Self.maximumCourierTokensPerUser, now: WallClock.nowMillis(), db)
        }
    }

    /// The token's user and how far it has been answered; nil for an unknown, expired or revoked token.
    public func courierToken(_ token: String) throws(StratusError) -> (user: String, deliveredThrough: Int64)? {
        guard token.utf8.count <= 128 else { return nil }
        let hash = Secrets.tokenHash(token)
        guard let row = try read({ db, _ in try CourierTokens.find(hash, now: WallClock.nowMillis(),
                                                                   db) }) else { return nil }
        return (row.user, max(row.deliveredThrough, courierProgress.withLock { $0.answered[hash] ?? 0 }))
    }

    /// Ends a user's web courier tokens: those made with one web auth token (by its hash), or all of them.
    public func revokeCourierTokens(user: String, madeWith webToken: String?) throws(StratusError) {
        try deleteUserRows(of: "courier_tokens", user: user, madeWith: webToken)
    }

    /// Marks everything up to `id` answered for the token (never moving back). The position is kept in memory and
    /// saved at most once a second for every token together, not with a synced commit per answer: a crash forgets
    /// at most the last second's answers, which are then sent again (delivery is at least once; `nid` dedups).
    public func courierDelivered(_ token: String, through id: Int64) throws(StratusError) {
        let hash = Secrets.tokenHash(token)
        let now = ContinuousClock.now
        let due: Bool = courierProgress.withLock { p in
            guard id > p.answered[hash] ?? 0 else { return false }
            p.answered[hash] = id
            p.dirty.insert(hash)
            guard now - p.savedAt >= .seconds(1) else { return false }
            p.savedAt = now
            return true
        }
        if due { try saveCourierProgress() }
    }

    /// Saves every courier position still only in memory (every second, and at a clean stop), then forgets the
    /// positions saved: memory holds only what moved since.
    public func saveCourierProgress() throws(StratusError) {
        let due = courierProgress.withLock { p in
            defer { p.dirty.removeAll() }
            return p.dirty.map { ($0, p.answered[$0]!) }
        }
        guard !due.isEmpty else { return }
        try write { db, _ in
            for (t, through) in due {
                try CourierTokens.answered(t, through: through, db)
            }
        }
        courierProgress.withLock { p in
            for (t, through) in due where !p.dirty.contains(t) && p.answered[t] == through { p.answered[t] = nil }
        }
    }
}

extension NotificationStore {
    /// Where a user's notification sits in the log, by its `nid` (SSE's `Last-Event-ID`). An unknown id is one
    /// dropped by the retention, or never the user's: CloudKit's expired-token answer, so the client starts afresh.
    public func notificationPosition(nid: String, user: String) throws(StratusError) -> Int64 {
        let position: Int64? = try NotificationBatch.position(nid: nid, salt: nidSalt,
                                                              user: user).flatMap { position throws(StratusError) -> Int64? in
            try read { db, _ -> Int64? in
                guard let count = try NotificationLog.count(of: user, batch: NotificationBatch.batch(of: position),
                                                            db) else { return nil }
                let index = position & Int64(NotificationBatch.maximumPerBatch - 1)
                return index < count ? position : nil
            }
        }
        guard let position else {
            throw StratusError(.changeTokenExpired,
                               "no notification '\(nid.prefix(64))' is kept for this user (expired after \(notificationRetention / 86_400_000) days, or never yours): reconnect without Last-Event-ID")
        }
        return position
    }
}
