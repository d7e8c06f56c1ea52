import Foundation
import Testing
import StratusModel
@testable import StratusStore

/// The notification payload is written by hand (for speed inside the write's transaction): it must stay valid JSON
/// that carries every string exactly, whatever characters it holds, and notification IDs must never repeat.
@Suite struct NotificationPayloadTests {
    @Test func payloadsAreValidJSONCarryingEveryStringExactly() throws {
        let hostile = "quote \" backslash \\ newline \n tab \t nul-free \u{1} \u{1F} del \u{7F} line-sep \u{2028} emoji 👩‍👩‍👧 é"
        let info = NotificationInfo(alertBody: hostile, alertLocalizationArgs: [hostile, "b"], soundName: "ping.aiff", shouldBadge: true,
                                    shouldSendContentAvailable: true, desiredKeys: ["title", "n", "where"])
        let sub = Subscription(subscriptionID: "s \"1\"", kind: .query(recordType: "T", filters: [], firesOn: [.create], firesOnce: false, zoneID: nil),
                               notificationInfo: info)
        let record = StoredRecord(recordName: "r\n1", recordType: "T", fields: ["title": .string(hostile), "n": .double(2.5),
                                                                             "where": .location(Location(latitude: 1, longitude: -2))])
        let text = NotificationPayload.make(nid: "nid", container: try ContainerID("iCloud.a.b"), environment: .production, owner: "_u",
                                            scope: .public, subscription: sub, reason: 1, record: record, zone: .defaultZone)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let aps = try #require(object["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: Any])?["body"] as? String == hostile)
        #expect((aps["alert"] as? [String: Any])?["loc-args"] as? [String] == [hostile, "b"])
        #expect(aps["badge"] as? Int == 1 && aps["content-available"] as? Int == 1 && aps["sound"] as? String == "ping.aiff")
        let ck = try #require(object["ck"] as? [String: Any])
        #expect(ck["ce"] as? Int == 2 && ck["cid"] as? String == "iCloud.a.b" && ck["ckuserid"] as? String == "_u" && ck["nid"] as? String == "nid")
        let qry = try #require(ck["qry"] as? [String: Any])
        #expect(qry["sid"] as? String == "s \"1\"" && qry["rid"] as? String == "r\n1" && qry["fo"] as? Int == 1 && qry["dbs"] as? Int == 1)
        let af = try #require(qry["af"] as? [String: Any])
        #expect(af["title"] as? String == hostile && af["n"] as? Double == 2.5 && (af["where"] as? [String: Any])?["longitude"] as? Double == -2)
        // Keys in order, so the same notification is the same bytes.
        #expect(text.hasPrefix(#"{"aps":{"alert":{"body":"#) && text.contains(#""af":{"n":2.5,"title":"#))
    }

    /// CloudKit's NotificationInfo has a title, a subtitle (literal or localized), a category and mutable content;
    /// APNs reads them in `aps` under Apple's keys.
    @Test func titlesSubtitlesCategoryAndMutableContentReachAps() throws {
        var info = NotificationInfo(alertBody: "body")
        info.title = "Notes"
        info.titleLocalizationArgs = ["title"]
        info.subtitleLocalizationKey = "CHANGED"
        info.category = "NOTE_ACTIONS"
        info.shouldSendMutableContent = true
        let sub = Subscription(subscriptionID: "s", kind: .database, notificationInfo: info)
        let text = NotificationPayload.make(nid: "nid", container: try ContainerID("iCloud.a.b"), environment: .development, owner: "_u",
                                            scope: .private, subscription: sub, reason: 0, record: nil, zone: .defaultZone)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let aps = try #require(object["aps"] as? [String: Any])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Notes" && alert["title-loc-args"] as? [String] == ["title"] && alert["subtitle-loc-key"] as? String == "CHANGED")
        #expect(aps["category"] as? String == "NOTE_ACTIONS" && aps["mutable-content"] as? Int == 1)
        // A subscription stored before these existed decodes unchanged.
        let old = try JSONDecoder().decode(NotificationInfo.self, from: Data(#"{"shouldBadge":false,"shouldSendContentAvailable":true}"#.utf8))
        #expect(old.title == nil && old.shouldSendMutableContent == nil && old.shouldSendContentAvailable)
    }

    /// A whole DOUBLE is written `3.0` in a payload as in every other answer (JSONWriter's one rule), so a reader
    /// of `af` keeps it a double.
    @Test func wholeDoublesAreSpelledAsEverywhereElse() throws {
        let sub = Subscription(subscriptionID: "s", kind: .query(recordType: "T", filters: [], firesOn: [.create], firesOnce: false, zoneID: nil),
                               notificationInfo: NotificationInfo(desiredKeys: ["n", "where"]))
        let record = StoredRecord(recordName: "r", recordType: "T", fields: ["n": .double(3), "where": .location(Location(latitude: 1, longitude: -2))])
        let text = NotificationPayload.make(nid: "nid", container: try ContainerID("iCloud.a.b"), environment: .development, owner: "_u",
                                            scope: .public, subscription: sub, reason: 1, record: record, zone: .defaultZone)
        #expect(text.contains(#""n":3.0"#) && text.contains(#""longitude":-2.0"#), "\(text)")
        var w = JSONWriter(capacity: 16)
        w.double(3)
        #expect(String(decoding: w.data, as: UTF8.self) == JSONWriter.text(of: 3))
    }

    @Test func notificationIDsLookLikeUUIDsAndNeverRepeat() {
        var seen = Set<String>()
        for _ in 0..<50 {
            var ids = NotificationIDs()
            for _ in 0..<200 { seen.insert(ids.next()) }
        }
        #expect(seen.count == 10_000)
        #expect(seen.allSatisfy { UUID(uuidString: $0) != nil && $0 == $0.lowercased() })
    }

    @Test func batchesKeepEveryEntryExactlyAndFindAUsersOwn() {
        let hostile = ["plain", "tab\there", "line\nbreak", "crlf\r\nx", "per%cent%0A%09%25", "\r", "é\u{301}", "👩‍👩‍👧", ""]
        var entries: [NotificationBatch.Entry] = []
        for (i, h) in hostile.enumerated() {
            let heading = NotificationBatch.Heading(user: i % 2 == 0 ? "_alice" : "_b\tob", scope: "private", recordName: i == 3 ? nil : h, reason: i == 4 ? nil : i % 3 + 1,
                                                    aps: { var w = JSONWriter(); w.beginObject(); w.field("s", h); w.endObject(); return String(decoding: w.bytes, as: UTF8.self) }())
            entries.append(NotificationBatch.Entry(heading: heading, subscriptionID: h, member: #""met":{"dbs":2,"sid":"x"}"#))
        }
        let text = NotificationBatch.encode(entries)
        let back = NotificationBatch.decode(text)
        #expect(back.count == entries.count)
        for (a, b) in zip(entries, back) {
            #expect(a.user == b.user && a.subscriptionID.unicodeScalars.elementsEqual(b.subscriptionID.unicodeScalars) && a.scope == b.scope)
            #expect(a.recordName.map { Array($0.unicodeScalars) } == b.recordName.map { Array($0.unicodeScalars) } && a.reason == b.reason && a.aps == b.aps && a.member == b.member)
        }
        #expect(NotificationBatch.entries(text, of: "_alice").map(\.0) == [0, 2, 4, 6, 8])
        #expect(NotificationBatch.entries(text, of: "_b\tob").map(\.0) == [1, 3, 5, 7])
        #expect(NotificationBatch.entries(text, of: "_b").isEmpty)
        // A notification ID spells its position and its user: another user's, or another environment's, is not found.
        let nid = NotificationBatch.nid(salt: 0xDEADBEEF, user: "_alice", position: NotificationBatch.position(batch: 42, index: 7))
        #expect(UUID(uuidString: nid) != nil && NotificationBatch.position(nid: nid, salt: 0xDEADBEEF, user: "_alice") == 42 << 20 | 7)
        #expect(NotificationBatch.nid(salt: 0xDEADBEEF, user: "_bob", position: 42 << 20 | 7) != nid)
        #expect(NotificationBatch.position(nid: nid, salt: 0xDEADBEEF, user: "_bob") == nil)
        #expect(NotificationBatch.position(nid: nid, salt: 1, user: "_alice") == nil && NotificationBatch.position(nid: "not-a-nid", salt: 0xDEADBEEF, user: "_alice") == nil)
    }

    @Test func groupsSpanOneIndexPerSubscriptionAndReadBackAsEntries() {
        let plain = NotificationBatch.Entry(heading: .init(user: "_b", scope: "private", recordName: nil, reason: nil, aps: "{}"), subscriptionID: "x", member: #""test":true"#)
        let group = NotificationBatch.Group(heading: .init(user: "_a\tx", scope: "public", recordName: "r 1", reason: 2, aps: "@abc"),
                                           template: #""qry":{"dbs":1,"fo":2,"rid":"r 1","sid":\#u{3},"zid":"z"}"#, subscriptionIDs: ["s1", "s\t2", "s,3"])
        let text = NotificationBatch.encode([group]) + NotificationBatch.encode([plain]) + NotificationBatch.encode([group])
        let all = NotificationBatch.decode(text)
        #expect(all.count == 7)
        #expect(all.map(\.subscriptionID) == ["s1", "s\t2", "s,3", "x", "s1", "s\t2", "s,3"], "\(all.map(\.subscriptionID))")
        #expect(all[1].member == #""qry":{"dbs":1,"fo":2,"rid":"r 1","sid":"s\t2","zid":"z"}"#, "\(all[1].member)")
        #expect(all[0].user == "_a\tx" && all[0].recordName == "r 1" && all[0].reason == 2 && all[0].aps == "@abc" && all[3].member == #""test":true"#)
        #expect(NotificationBatch.entries(text, of: "_b").map(\.0) == [3])
        #expect(NotificationBatch.entries(text, of: "_a\tx").map(\.0) == [0, 1, 2, 4, 5, 6])
    }
}
