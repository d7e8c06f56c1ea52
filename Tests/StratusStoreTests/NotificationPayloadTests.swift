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

    @Test func notificationIDsLookLikeUUIDsAndNeverRepeat() {
        var seen = Set<String>()
        for _ in 0..<50 {
            var ids = NotificationIDs()
            for _ in 0..<200 { seen.insert(ids.next()) }
        }
        #expect(seen.count == 10_000)
        #expect(seen.allSatisfy { UUID(uuidString: $0) != nil && $0 == $0.lowercased() })
    }
}
