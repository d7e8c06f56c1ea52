import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore
import StratusTestSupport

/// A page of large records is read from the database at once and sent at the client's pace from a spool: a client
/// that never reads holds at most the page's first megabyte in memory, is let go when it stops reading, and gives
/// back what its answer held; a client that reads gets the page whole.
@Suite struct SlowReaderTests {
    @Test func aClientThatNeverReadsAPageHoldsNoMemoryAndIsLetGo() async throws {
        let f = try await APIFixture { c in
            c.http.bodyMinimumRate = 16 * 1024
            c.http.bodyRateWindow = .seconds(1)
        }
        let env = try f.app.store.environment(f.container, .development)
        let text = String(repeating: "x", count: 500_000)
        try await offPool {
            for b in 0..<4 {
                let ops = (0..<5).map { RecordOperation(.create, StoredRecord(recordName: "big\(b)-\($0)", recordType: "Big", fields: ["text": .string(text)])) }
                _ = try env.records.modify(ops, in: .publicDatabase, actor: RequestActor(userRecordName: f.alice.userRecordName))
            }
        }
        let body = #"{"resultsLimit":200,"query":{"recordType":"Big"}}"#
        let request = "POST /database/1/\(f.container.rawValue)/development/public/records/query?ckAPIToken=\(APIFixture.encode(f.devToken))&ckWebAuthToken=\(APIFixture.encode(f.aliceToken)) HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let stalled = try RawClient(port: f.app.port, receiveTimeout: 120, receiveBuffer: 4096)
        stalled.send(request)
        var peak = (memory: 0, spooled: 0)
        for _ in 0..<40 {
            try await Task.sleep(for: .milliseconds(50))
            let a = f.app.answerFigures
            peak = (max(peak.memory, a.memory), max(peak.spooled, a.spooled))
        }
        #expect(peak.memory <= 1 << 20 && peak.spooled >= 5 << 20, "a 10 MB page held \(peak.memory) bytes in memory, \(peak.spooled) spooled")
        var freed = false
        for _ in 0..<600 where !freed {
            try await Task.sleep(for: .milliseconds(100))
            freed = f.app.answerFigures.memory == 0 && f.app.answerFigures.spooled == 0
        }
        #expect(freed, "the stalled client was let go and its answer given back")
        // Its connection is closed: what it reads now ends (the part of the page that had reached it, then nothing).
        let start = ContinuousClock.now
        _ = stalled.readAll()
        #expect(ContinuousClock.now - start < .seconds(60))
        // A client that reads gets every record.
        let page = try await f.call("records/query", body, user: f.aliceToken)
        #expect(page.status == 200 && page.json.records.count == 20 && page.json.records.allSatisfy { $0["fields"]?["text"]?["value"]?.string == text })
    }
}
