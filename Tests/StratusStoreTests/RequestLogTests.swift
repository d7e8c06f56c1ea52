import Foundation
import Testing
import StratusModel
@testable import StratusStore

/// The request log writes what a second gathered many entries per statement: every entry lands once, in the
/// order served, however many a flush holds.
@Suite struct RequestLogTests {
    @Test func aFlushOfManyEntriesKeepsEveryOneInOrder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("requestlog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = try RequestLog(file: dir.appendingPathComponent("requests.sqlite"))
        defer { log.stop() }
        let now = WallClock.nowMillis()
        // 1,300 = 512 + 512 + 256 + 16 + 4: five statements of the sizes a connection keeps prepared.
        for i in 0..<1_300 {
            log.append(RequestLogEntry(at: now + Int64(i), container: "iCloud.t", environment: "development", operation: i % 2 == 0 ? "records/lookup" : "records/query",
                                       database: "public", user: i == 7 ? "_alice" : nil, status: i == 9 ? 400 : 200, errorCode: i == 9 ? "BAD_REQUEST" : nil,
                                       durationMicroseconds: i, uuid: nil, injected: false))
        }
        log.flush()
        var seen: [Int] = []
        var before: Int64? = nil
        while true {
            let page = try log.entries(container: "iCloud.t", environment: "development", before: before, limit: 1_000)
            guard let last = page.last else { break }
            seen += page.map(\.durationMicroseconds)
            before = last.id
        }
        #expect(seen == Array((0..<1_300).reversed()))
        #expect(try log.entries(container: "iCloud.t", environment: "development", user: "_alice").map(\.durationMicroseconds) == [7])
        #expect(try log.entries(container: "iCloud.t", environment: "development", status: 400).first?.errorCode == "BAD_REQUEST")
    }

    /// Requests served one after another on different threads are logged in the order they came, though each
    /// thread queues its entries apart from the others' (and within one millisecond).
    @Test func entriesFromManyThreadsKeepTheOrderTheyCameIn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("requestlog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = try RequestLog(file: dir.appendingPathComponent("requests.sqlite"))
        defer { log.stop() }
        let now = WallClock.nowMillis()
        for i in 0..<40 {
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                log.append(RequestLogEntry(at: now, container: "iCloud.t", environment: "development", operation: "records/lookup",
                                           database: "public", user: nil, status: 200, errorCode: nil,
                                           durationMicroseconds: i, uuid: nil, injected: false))
                done.signal()
            }
            thread.start()
            done.wait()
        }
        log.flush()
        let logged = try log.entries(container: "iCloud.t", environment: "development", before: nil, limit: 100)
        #expect(logged.map(\.durationMicroseconds) == Array((0..<40).reversed()))
    }

    /// Entries past the retention go at the next flush, newer ones stay; the flush finds them by the primary key.
    @Test func expiredEntriesAreDeletedAtTheNextFlush() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("requestlog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = try RequestLog(file: dir.appendingPathComponent("requests.sqlite"))
        defer { log.stop() }
        let now = WallClock.nowMillis()
        func entry(_ at: Int64, _ n: Int) -> RequestLogEntry {
            RequestLogEntry(at: at, container: "iCloud.t", environment: "development", operation: "records/query", database: "public", user: nil,
                            status: 200, errorCode: nil, durationMicroseconds: n, uuid: nil, injected: false)
        }
        for i in 0..<5 { log.append(entry(now - RequestLog.retention - 60_000 + Int64(i), i)) }
        for i in 5..<8 { log.append(entry(now - RequestLog.retention + 600_000, i)) }
        log.flush()
        // The expired five went in the same flush that wrote them; the three within the retention stay.
        #expect(try log.entries(container: "iCloud.t", environment: "development").map(\.durationMicroseconds) == [7, 6, 5])
        log.append(entry(now, 8))
        log.flush()
        #expect(try log.entries(container: "iCloud.t", environment: "development").map(\.durationMicroseconds) == [8, 7, 6, 5])
    }

    @Test func chunksAreFullOrPowersOfTwo() {
        #expect(RequestLog.chunkSize(1) == 1 && RequestLog.chunkSize(3) == 2 && RequestLog.chunkSize(511) == 256 && RequestLog.chunkSize(512) == 512 && RequestLog.chunkSize(5_000) == 512)
    }
}
