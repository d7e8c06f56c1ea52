import Foundation
import StratusModel

/// CloudKit's remote-notification dictionary, `{"aps": {…}, "ck": {…}}`, as APNs would carry it and the web
/// courier returns it. `ck.qry` for query subscriptions, `ck.fet` for zone and `ck.met` for database ones; `dbs`
/// is CKDatabase.Scope's number (1 public, 2 private, 3 shared); `fo` 1 created, 2 updated, 3 deleted.
enum NotificationPayload {
    static func make(nid: String, container: ContainerID, environment: Environment, owner: String, scope: DatabaseScope,
                     subscription: Subscription, reason: Int, record: StoredRecord?, zone: ZoneID) -> String {
        // Written byte by byte, members in key order: this runs inside the write's transaction, once per
        // notification, and its bytes are compared by clients that deduplicate (and by tests).
        var out: [UInt8] = []
        out.reserveCapacity(384)
        func raw(_ s: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)) }
        func str(_ s: String) { PayloadJSON.quote(s, into: &out) }
        func int(_ i: Int) { out.append(contentsOf: String(i).utf8) }
        let dbs = scope == .public ? 1 : scope == .private ? 2 : 3
        let zoneOwner = zone.ownerRecordName ?? (scope == .public ? "_defaultOwner" : owner)
        raw(#"{"aps":"#)
        aps(subscription.notificationInfo).write(into: &out)
        raw(#","ck":{"ce":"#)
        int(environment == .production ? 2 : 1)
        raw(#","cid":"#); str(container.rawValue)
        raw(#","ckuserid":"#); str(owner)
        switch subscription.kind {
        case .query:
            raw(#","nid":"#); str(nid)
            raw(#","qry":{"#)
            if let keys = subscription.notificationInfo.desiredKeys, reason != 3, let record {
                var af: [String: PayloadJSON] = [:]
                for k in keys { if let v = record.fields[k], let plain = plainValue(v) { af[k] = plain } }
                raw(#""af":"#); PayloadJSON.sorted(af).write(into: &out); raw(",")
            }
            raw(#""dbs":"#); int(dbs)
            raw(#","fo":"#); int(reason)
            raw(#","rid":"#); str(record?.recordName ?? "")
            raw(#","sid":"#); str(subscription.subscriptionID)
            raw(#","zid":"#); str(zone.zoneName)
            raw(#","zoid":"#); str(zoneOwner)
            raw("}")
        case .zone:
            raw(#","fet":{"dbs":"#); int(dbs)
            raw(#","sid":"#); str(subscription.subscriptionID)
            raw(#","zid":"#); str(zone.zoneName)
            raw(#","zoid":"#); str(zoneOwner)
            raw(#"},"nid":"#); str(nid)
        case .database:
            raw(#","met":{"dbs":"#); int(dbs)
            raw(#","sid":"#); str(subscription.subscriptionID)
            raw(#"},"nid":"#); str(nid)
        }
        raw("}}")
        return String(decoding: out, as: UTF8.self)
    }

    /// `aps` from the subscription's notification info: the alert, sound, badge and `content-available`.
    static func aps(_ info: NotificationInfo) -> PayloadJSON {
        var alert: [(String, PayloadJSON)] = []
        if let k = info.alertActionLocalizationKey { alert.append(("action-loc-key", .string(k))) }
        if let b = info.alertBody { alert.append(("body", .string(b))) }
        if let i = info.alertLaunchImage { alert.append(("launch-image", .string(i))) }
        if let a = info.alertLocalizationArgs { alert.append(("loc-args", .array(a.map(PayloadJSON.string)))) }
        if let k = info.alertLocalizationKey { alert.append(("loc-key", .string(k))) }
        var aps: [(String, PayloadJSON)] = []
        if !alert.isEmpty { aps.append(("alert", .object(alert))) }
        if info.shouldBadge { aps.append(("badge", .int(1))) }
        if info.shouldSendContentAvailable { aps.append(("content-available", .int(1))) }
        if let s = info.soundName { aps.append(("sound", .string(s))) }
        return .object(aps)
    }

    /// A field value as plain JSON for `af` (strings, numbers, record names).
    static func plainValue(_ v: FieldValue) -> PayloadJSON? {
        switch v {
        case .string(let s): .string(s)
        case .int64(let i), .timestamp(let i): .int(i)
        case .double(let d): .double(d)
        case .reference(let r): .string(r.recordName)
        case .bytes(let d): .string(d.base64EncodedString())
        case .location(let l): .object([("latitude", .double(l.latitude)), ("longitude", .double(l.longitude))])
        case .list(_, let xs): .array(xs.compactMap(plainValue))
        case .asset: nil
        }
    }
}
