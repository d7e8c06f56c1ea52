import StratusModel

/// `apns_deliveries`: what was pushed to each device, one row per device and notification (updated by each retry),
/// the newest few thousand kept for the console. Every statement on it is here.
enum APNsDeliveryRows {
    enum Column: String, TableColumn {
        case id, token, user, nid, state, status, reason, attempts, at, apnsID = "apns_id"
    }

    /// Records a push's outcome: its row updated, or made.
    static func record(_ d: APNsDelivery, _ s: any SQLSession) throws {
        let updated = try s.execute("""
            UPDATE apns_deliveries SET state = ?, status = ?, reason = ?, apns_id = ?, attempts = ?, at = ? WHERE token = ? AND nid = ?
            """, d.state.rawValue, Int64(d.status), d.reason, d.apnsID, Int64(d.attempts), d.at, d.token, d.notificationID)
        guard updated == 0 else { return }
        try s.execute("""
            INSERT INTO apns_deliveries(token, "user", nid, state, status, reason, apns_id, attempts, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, d.token, d.userRecordName, d.notificationID, d.state.rawValue, Int64(d.status), d.reason, d.apnsID, Int64(d.attempts), d.at)
    }

    /// Keeps the newest `keep` rows.
    static func trim(keep: Int64, _ s: any SQLSession) throws {
        if let newest = try s.int64("SELECT MAX(id) FROM apns_deliveries"), newest > keep {
            try s.execute("DELETE FROM apns_deliveries WHERE id <= ?", newest - keep)
        }
    }

    /// The newest pushes first.
    static func newest(limit: Int, _ s: any SQLSession) throws -> [APNsDelivery] {
        let columns = Selection<Column>([.id, .token, .user, .nid, .state, .status, .reason, .apnsID, .attempts, .at])
        return try s.all("SELECT \(columns.sql) FROM apns_deliveries ORDER BY id DESC LIMIT ?", [Int64(limit)]) { r in
            let row = NamedRow(r, columns)
            return APNsDelivery(id: row.int64(.id) ?? 0, token: row.string(.token) ?? "",
                                userRecordName: row.string(.user) ?? "",
                                notificationID: row.string(.nid) ?? "", state: APNsDelivery.State(rawValue: row.string(.state) ?? "") ?? .failed,
                                status: Int(row.int64(.status) ?? 0), reason: row.string(.reason), apnsID: row.string(.apnsID),
                                attempts: Int(row.int64(.attempts) ?? 0), at: row.int64(.at) ?? 0)
        }
    }
}
