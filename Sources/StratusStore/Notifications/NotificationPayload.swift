import Foundation
import StratusModel

/// CloudKit's remote-notification dictionary, `{"aps": {…}, "ck": {…}}`, as APNs would carry it and the web
/// courier returns it. `ck.qry` for query subscriptions, `ck.fet` for zone and `ck.met` for database ones; `dbs`
/// is CKDatabase.Scope's number (1 public, 2 private, 3 shared); `fo` 1 created, 2 updated, 3 deleted.
enum NotificationPayload {
    static func make(nid: String, container: ContainerID, environment: Environment, owner: String, scope: DatabaseScope,
                     subscription: Subscription, reason: Int, record: StoredRecord?, zone: ZoneID) -> String {
        let dbs = scope == .public ? 1 : scope == .private ? 2 : 3
        var ck: [String: Any] = ["nid": nid, "cid": container.rawValue, "ce": environment == .production ? 2 : 1, "ckuserid": owner]
        let zoneOwner = zone.ownerRecordName ?? (scope == .public ? "_defaultOwner" : owner)
        switch subscription.kind {
        case .query:
            var qry: [String: Any] = ["sid": subscription.subscriptionID, "rid": record?.recordName ?? "", "zid": zone.zoneName, "zoid": zoneOwner,
                                      "fo": reason, "dbs": dbs]
            if let keys = subscription.notificationInfo.desiredKeys, reason != 3, let record {
                var af: [String: Any] = [:]
                for k in keys { if let v = record.fields[k], let plain = plainValue(v) { af[k] = plain } }
                qry["af"] = af
            }
            ck["qry"] = qry
        case .zone:
            ck["fet"] = ["sid": subscription.subscriptionID, "zid": zone.zoneName, "zoid": zoneOwner, "dbs": dbs]
        case .database:
            ck["met"] = ["sid": subscription.subscriptionID, "dbs": dbs]
        }
        let info = subscription.notificationInfo
        var aps: [String: Any] = [:]
        var alert: [String: Any] = [:]
        if let b = info.alertBody { alert["body"] = b }
        if let k = info.alertLocalizationKey { alert["loc-key"] = k }
        if let a = info.alertLocalizationArgs { alert["loc-args"] = a }
        if let k = info.alertActionLocalizationKey { alert["action-loc-key"] = k }
        if let i = info.alertLaunchImage { alert["launch-image"] = i }
        if !alert.isEmpty { aps["alert"] = alert }
        if let s = info.soundName { aps["sound"] = s }
        if info.shouldBadge { aps["badge"] = 1 }
        if info.shouldSendContentAvailable { aps["content-available"] = 1 }
        let object: [String: Any] = ["aps": aps, "ck": ck]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A field value as plain JSON for `af` (strings, numbers, record names).
    static func plainValue(_ v: FieldValue) -> Any? {
        switch v {
        case .string(let s): s
        case .int64(let i), .timestamp(let i): i
        case .double(let d): d
        case .reference(let r): r.recordName
        case .bytes(let d): d.base64EncodedString()
        case .location(let l): ["latitude": l.latitude, "longitude": l.longitude]
        case .list(_, let xs): xs.compactMap(plainValue)
        case .asset: nil
        }
    }
}
