import Crypto
import Foundation
import StratusModel

/// The `aps` texts notifications show, kept once per distinct text (`notification_infos`) and referenced from the
/// log by a hash: a subscription's alert is written when it is saved, not copied into each of its notifications, so
/// a user's thousand subscriptions with long alerts cost the log a reference each. Short texts (the common
/// `{"content-available":1}`) stay inline, which no lookup beats.
///
/// A text no subscription uses any more is marked released the first time a sweep notices, and dropped one
/// retention later: every notification that could reference it is older than the mark, so gone by then.
enum NotificationInfos {
    /// The columns of `notification_infos`.
    enum Column: String, TableColumn {
        case ref, aps, releasedAt = "released_at"
    }

    /// The `aps` of one notification info: its JSON, and what a log line holds for it.
    struct APS: Sendable, Hashable {
        let text: String
        /// The log's field: the JSON itself when short, or `@` and the reference (JSON never starts with `@`).
        let field: String

        init(_ info: NotificationInfo) { self.init(text: NotificationPayload.aps(info)) }

        init(text: String) {
            self.text = text
            field = text.utf8.count <= NotificationInfos.inlineLimit ? text : "@" + NotificationInfos.reference(text)
        }

        var isReference: Bool { field.hasPrefix("@") }
    }

    /// Texts up to this many bytes are kept inline: a reference is about as long.
    static let inlineLimit = 48

    /// 96 bits of SHA-256: no two texts a store will ever hold share one.
    static func reference(_ text: String) -> String { Secrets.hex(Data(SHA256.hash(data: Data(text.utf8))).prefix(12)) }

    /// Keeps a text for the notifications a subscription will fire (and takes back a release mark).
    static func keep(_ aps: APS, _ s: any SQLSession) throws {
        guard aps.isReference else { return }
        try s.execute("""
            INSERT INTO notification_infos(ref, aps, released_at) VALUES (?, ?, NULL) ON CONFLICT(ref) DO UPDATE SET released_at = NULL
            """, String(aps.field.dropFirst()), aps.text)
    }

    /// Marks texts no live subscription uses, and drops those marked at least `retention` ago.
    static func sweep(live: Set<String>, now: Int64, retention: Int64, _ s: any SQLSession) throws {
        let columns = Selection<Column>([.ref, .releasedAt])
        let kept = try s.all("SELECT \(columns.sql) FROM notification_infos") { r in
            let row = NamedRow(r, columns)
            return (row.string(.ref) ?? "", row.int64(.releasedAt))
        }
        for (ref, released) in kept where !live.contains(ref) {
            if let released {
                if released < now - retention { try s.execute("DELETE FROM notification_infos WHERE ref = ?", ref) }
            } else {
                try s.execute("UPDATE notification_infos SET released_at = ? WHERE ref = ?", now, ref)
            }
        }
    }

    /// The JSON a log field stands for, through `cache` (texts never change under a reference).
    static func resolve(_ field: String, cache: ExpiringCache<String, String>?, _ s: any SQLSession) throws -> String {
        guard field.hasPrefix("@") else { return field }
        let ref = String(field.dropFirst())
        if let hit = cache?.value(for: ref) { return hit }
        // A text dropped by a sweep can only belong to a notification past the retention: show it without alert.
        let text = try s.one("SELECT aps FROM notification_infos WHERE ref = ?", [ref]) { NamedRow($0,
                Selection<Column>([.aps])).string(.aps) } ?? "{}"
        cache?.set(text, for: ref)
        return text
    }
}
