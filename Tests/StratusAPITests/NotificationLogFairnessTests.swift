import Foundation
import Testing
@testable import StratusAPI
import StratusModel
@testable import StratusStore
import StratusTestSupport

/// One user's flood of notifications drops their own backlog, not another user's: each recipient has a budget in
/// the log, and a full log loses its heaviest recipient's oldest notifications first. What is dropped is counted
/// (`stratus_notifications_evicted_total`).
@Suite struct NotificationLogFairnessTests {
    @Test(arguments: Backend.allCases) func aFloodDropsOnlyItsRecipientsBacklog(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend, configure: { $0.notifications.logBudgetBytes = 400_000 }) else { return }
        let env = try f.app.store.environment(f.container, .development)
        // Alice subscribes to her own notes; Bob subscribes 50 times to every public Post.
        let mine = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"Z"},"notificationInfo":{"shouldSendContentAvailable":true}}}]}"#
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#, db: "private", user: f.aliceToken)
        #expect(try await f.call("subscriptions/modify", mine, db: "private", user: f.aliceToken).json["subscriptions"]?.array?.first?.code == nil)
        let floods = (0..<50).map { #"{"operationType":"create","subscription":{"subscriptionID":"f\#($0)","subscriptionType":"query","query":{"recordType":"Post"},"firesOn":["create"],"notificationInfo":{"alertBody":"\#(String(repeating: "x", count: 200))"}}}"# }
        let subscribed = try await f.call("subscriptions/modify", #"{"operations":[\#(floods.joined(separator: ","))]}"#, user: f.bobToken)
        #expect((subscribed.json["subscriptions"]?.array ?? []).allSatisfy { $0.code == nil }, "\(subscribed.text.prefix(300))")

        // Alice's notification comes first; a listener of hers is behind it, at the start.
        let start = try await offPool { try env.notifications.lastNotificationID(for: f.alice.userRecordName) }
        let note = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note"}}]}"#,
                                    db: "private", user: f.aliceToken)
        #expect(note.json.records.first?.code == nil)
        let bobStart = try await offPool { try env.notifications.lastNotificationID(for: f.bob.userRecordName) }
        // Bob's flood: 200-record writes, each firing 50 notifications per record for him, far past the log's budget.
        for batch in 0..<12 {
            let ops = (0..<200).map { #"{"operationType":"create","record":{"recordName":"p\#(batch)-\#($0)","recordType":"Post"}}"# }.joined(separator: ",")
            let r = try await f.call("records/modify", #"{"operations":[\#(ops)]}"#, user: f.bobToken)
            #expect(r.status == 200, "\(r.text.prefix(200))")
        }
        let (logBytes, evicted) = try await offPool { env.notifications.deliverHandedOff(); env.notifications.tendLog(); return (try env.core.read { s, _ in try NotificationLog.bytes(s) }, env.notifications.notificationCounter.evicted) }
        #expect(logBytes <= 400_000, "the log keeps to its budget: \(logBytes)")
        #expect(evicted > 0, "the flood was past the budget, so some of it was dropped")
        // Alice resumes from before her notification and gets it; Bob, from before his flood, is told to start afresh.
        let alices = try await offPool { try env.notifications.entries(for: f.alice.userRecordName, after: start) }
        #expect(alices.map(\.recordName) == ["n1"])
        await #expect(throws: StratusError.self) { try await offPool { try env.notifications.entries(for: f.bob.userRecordName, after: bobStart) } }
        // And the same over the wire: an SSE stream with the Last-Event-ID of nothing yet still delivers hers.
        // The log's upkeep may drop more of the flood meanwhile: the metric shows the count once it is read, and
        // no more than the counter holds after.
        let line = "stratus_notifications_evicted_total{container=\"\(f.container.rawValue)\",environment=\"development\"} "
        var metrics = "", shown: Int?
        for _ in 0..<50 {
            metrics = try await Self.metrics(f)
            shown = metrics.split(separator: "\n").first { $0.hasPrefix(line) }.flatMap { Int($0.dropFirst(line.count)) }
            if let shown, shown >= evicted { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let after = env.notifications.notificationCounter.evicted
        #expect(shown.map { (evicted...after).contains($0) } == true, "\(evicted)…\(after): \(metrics.suffix(600))")
    }

    static func metrics(_ f: APIFixture) async throws -> String {
        let c = try RawClient(port: f.app.port, receiveTimeout: 30)
        c.send("GET /-/metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        return String(decoding: await c.response()?.body ?? Data(), as: UTF8.self)
    }
}
