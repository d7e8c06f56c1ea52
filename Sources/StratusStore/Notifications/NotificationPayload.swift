import Foundation
import StratusModel

/// CloudKit's remote-notification dictionary, `{"aps": {…}, "ck": {…}}`, as APNs would carry it and the web
/// courier returns it. `ck.qry` for query subscriptions, `ck.fet` for zone and `ck.met` for database ones; `dbs`
/// is CKDatabase.Scope's number (1 public, 2 private, 3 shared); `fo` 1 created, 2 updated, 3 deleted.
enum NotificationPayload {
    static func make(nid: String, container: ContainerID, environment: ContainerEnvironment, owner: String,
                     scope: DatabaseScope,
                     subscription: Subscription, reason: Int, record: StoredRecord?, zone: ZoneID) -> String {
        let m = member(owner: owner, scope: scope, subscription: subscription, reason: reason, record: record,
                       zone: zone)
        return render(aps: aps(subscription.notificationInfo), member: m, nid: nid, container: container,
                      environment: environment, user: owner)
    }

    /// What a notification says beyond who and where it is and its `aps`: the `ck` member of its kind (`"qry":{…}`,
    /// `"fet":{…}` or `"met":{…}`), preceded by `"prn":1` when `desiredKeys` fields were left out to fit
    /// `NotificationPolicy.maximumFieldBytes` (CloudKit's pruned notification). The log keeps this; `render` adds
    /// the rest when the notification is read. Written byte by byte, members in key order: this runs inside the
    /// write's transaction, once per notification.
    static func member(owner: String, scope: DatabaseScope, subscription: Subscription, reason: Int,
                       record: StoredRecord?, zone: ZoneID) -> String {
        var fieldsMemo: [[String]: (json: [UInt8], pruned: Bool)] = [:]
        return member(owner: owner, scope: scope, subscription: subscription, reason: reason, record: record,
                      zone: zone, fieldsMemo: &fieldsMemo)
    }

    /// The same, with the `af` of this record kept in `fieldsMemo` by `desiredKeys`: a change that fires a thousand
    /// subscriptions asking for the same fields writes them once, not a thousand times.
    /// With `idPlaceholder`, `NotificationBatch.Group.placeholder` stands where the subscription ID goes: the
    /// template the log keeps for a group of subscriptions that one change fires alike.
    static func member(owner: String, scope: DatabaseScope, subscription: Subscription, reason: Int,
                       record: StoredRecord?, zone: ZoneID,
                       fieldsMemo: inout [[String]: (json: [UInt8],
                                                     pruned: Bool)], idPlaceholder: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(192)
        func raw(_ s: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start,
                count: s.utf8CodeUnitCount)) }
        func str(_ s: String) { JSONWriter.quote(s, into: &out) }
        func int(_ i: Int) { out.append(contentsOf: String(i).utf8) }
        func sid() { if idPlaceholder { out.append(3) } else { str(subscription.subscriptionID) } }
        let dbs = scope == .public ? 1 : scope == .private ? 2 : 3
        let zoneOwner = zone.ownerRecordName ?? (scope == .public ? "_defaultOwner" : owner)
        /// The members every zone-level kind ends with: the subscription, then the zone and its owner.
        func zoneTail() {
            raw(#","sid":"#); sid()
            raw(#","zid":"#); str(zone.zoneName)
            raw(#","zoid":"#); str(zoneOwner)
            raw("}")
        }
        switch subscription.kind {
        case .query:
            var af: [UInt8]? = nil
            var pruned = false
            if let keys = subscription.notificationInfo.desiredKeys, reason != 3, let record {
                if let memo = fieldsMemo[keys] { (af, pruned) = memo } else {
                    let made = fields(keys, of: record)
                    fieldsMemo[keys] = made
                    (af, pruned) = made
                }
            }
            if pruned { raw(#""prn":1,"#) }
            raw(#""qry":{"#)
            if let af { raw(#""af":"#); out += af; raw(",") }
            raw(#""dbs":"#); int(dbs)
            raw(#","fo":"#); int(reason)
            raw(#","rid":"#); str(record?.recordName ?? "")
            zoneTail()
        case .zone:
            raw(#""fet":{"dbs":"#); int(dbs)
            zoneTail()
        case .database:
            raw(#""met":{"dbs":"#); int(dbs)
            raw(#","sid":"#); sid()
            raw("}")
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `af`: the desired fields as plain JSON, in key order, holding at most `maximumFieldBytes`: the fields asked
    /// for first are kept first, and whether any was left out.
    static func fields(_ keys: [String], of record: StoredRecord) -> (json: [UInt8], pruned: Bool) {
        var values: [(key: String, json: [UInt8])] = []
        var budget = NotificationPolicy.maximumFieldBytes - 2
        var pruned = false
        for k in keys where !values.contains(where: { $0.key == k }) {
            guard let v = record.fields[k] else { continue }
            // A text longer than what is left cannot fit once quoted: left out without writing it.
            if case .string(let text) = v, text.utf8.count + k.utf8.count + 4 > budget { pruned = true; continue }
            var one = JSONWriter(capacity: 64)
            one.key(k)
            guard one.plain(v) else { continue }
            let cost = one.count + 1
            if cost > budget { pruned = true; continue }
            budget -= cost
            values.append((k, one.bytes))
        }
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, v) in values.sorted(by: { $0.key < $1.key }).enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += v.json
        }
        out.append(UInt8(ascii: "}"))
        return (out, pruned)
    }

    /// The whole `{"aps", "ck"}` JSON, members in key order: `ck` is `ce`, `cid`, `ckuserid`, then the kind's
    /// member and `nid` in their sorted places (`fet`/`met` before `nid`, `qry` and `test` after).
    static func render(aps: String, member: String, nid: String, container: ContainerID,
                       environment: ContainerEnvironment, user: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(aps.utf8.count + member.utf8.count + 160)
        func raw(_ s: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start,
                count: s.utf8CodeUnitCount)) }
        raw(#"{"aps":"#); out += aps.utf8
        raw(#","ck":{"ce":"#); out += (environment == .production ? "2" : "1").utf8
        raw(#","cid":"#); JSONWriter.quote(container.rawValue, into: &out)
        raw(#","ckuserid":"#); JSONWriter.quote(user, into: &out)
        // `fet` and `met` sort before `nid`; `prn`, `qry` and `test` after it.
        let before = member.hasPrefix(#""fet""#) || member.hasPrefix(#""met""#)
        if before { raw(","); out += member.utf8 }
        raw(#","nid":"#); JSONWriter.quote(nid, into: &out)
        if !before && !member.isEmpty { raw(","); out += member.utf8 }
        raw("}}")
        return String(decoding: out, as: UTF8.self)
    }

    /// `aps` from the subscription's notification info: the alert, sound, badge and `content-available`, members
    /// in key order.
    static func aps(_ info: NotificationInfo) -> String {
        var w = JSONWriter(capacity: 128)
        w.beginObject()
        let texts: [(StaticString, String?)] = [("action-loc-key", info.alertActionLocalizationKey), ("body",
                info.alertBody),
                                                ("launch-image", info.alertLaunchImage)]
        let rest: [(StaticString, String?)] = [("loc-key", info.alertLocalizationKey), ("subtitle", info.subtitle)]
        let hasAlert = (texts + rest).contains { $0.1 != nil } || info.alertLocalizationArgs != nil || info.subtitleLocalizationArgs != nil
            || info.subtitleLocalizationKey != nil || info.title != nil || info.titleLocalizationArgs != nil || info.titleLocalizationKey != nil
        if hasAlert {
            w.key("alert")
            w.beginObject()
            for (k, v) in texts { if let v { w.field(k, v) } }
            if let a = info.alertLocalizationArgs { w.strings("loc-args", a) }
            for (k, v) in rest { if let v { w.field(k, v) } }
            if let a = info.subtitleLocalizationArgs { w.strings("subtitle-loc-args", a) }
            if let k = info.subtitleLocalizationKey { w.field("subtitle-loc-key", k) }
            if let t = info.title { w.field("title", t) }
            if let a = info.titleLocalizationArgs { w.strings("title-loc-args", a) }
            if let k = info.titleLocalizationKey { w.field("title-loc-key", k) }
            w.endObject()
        }
        if info.shouldBadge { w.field("badge", Int64(1)) }
        if let c = info.category { w.field("category", c) }
        if info.shouldSendContentAvailable { w.field("content-available", Int64(1)) }
        if info.shouldSendMutableContent == true { w.field("mutable-content", Int64(1)) }
        if let s = info.soundName { w.field("sound", s) }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

}
