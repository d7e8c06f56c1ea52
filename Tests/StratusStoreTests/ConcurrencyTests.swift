import Foundation
import Synchronization
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// Runs blocking store calls on threads of their own, as a server must: the store's API is synchronous, and
/// blocking Swift's few cooperative threads with it would stall every async task in the process.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for i in 0..<count {
            group.addTask {
                try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
                    Thread { c.resume(with: Result { try body(i) }) }.start()
                }
            }
        }
        try await group.waitForAll()
    }
}

@Suite struct ConcurrencyTests {
    /// The first requests after a start arrive together: every one gets the environment (opened and migrated once).
    @Test func environmentsOpenedConcurrentlyAreOpenedOnce() async throws {
        let f = try Fixture()
        let fresh = try ContainerID("iCloud.com.example.Fresh")
        try f.store.createContainer(fresh)
        // A process that starts on a file every migration is pending for (here: a new file).
        let dir = f.directory.appendingPathComponent("containers/\(fresh.rawValue)")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(at: dir.appendingPathComponent("production.sqlite" + suffix)) }
        let store = try ServerStore(dataDirectory: f.directory, durability: .relaxed)
        let opened = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<8 {
                group.addTask { try await StratusTestSupport.offPool { ObjectIdentifier(try store.environment(fresh, .production)) } }
            }
            var ids: [ObjectIdentifier] = []
            for try await id in group { ids.append(id) }
            return ids
        }
        #expect(opened.count == 8 && Set(opened).count == 1)
    }

    /// A server's stop closes the store while work may still be inside it (a telemetry sample, a request past the
    /// drain timeout). Reads and writes racing the close either finish or fail with an error; none crashes the
    /// process (GRDB's close alone let a read run its statement on a closed handle: signal 11).
    @Test func closingWhileReadingAndWritingNeverCrashes() async throws {
        let f = try Fixture()
        _ = try f.save([note("seed", ["n": .int64(0)])])
        let env = try f.store.environment(f.container, .development)
        let closed = Synchronization.Atomic<Bool>(false)
        let afterClose = Synchronization.Atomic<Int>(0)
        try await onThreads(5) { i in
            if i == 0 {
                usleep(50_000)
                f.store.close()
                closed.store(true, ordering: .sequentiallyConsistent)
                return
            }
            var n = 0
            while n < 100_000 {
                n += 1
                let wasClosed = closed.load(ordering: .sequentiallyConsistent)
                do {
                    if i % 2 == 0 {
                        _ = try env.records.query(Query(recordType: "Note"), in: f.pub)
                    } else {
                        _ = try f.one(.forceUpdate, note("seed", ["n": .int64(Int64(n))]))
                    }
                } catch {
                    if wasClosed { afterClose.add(1, ordering: .relaxed); break }
                }
                if wasClosed { break }
            }
        }
        #expect(afterClose.load(ordering: .relaxed) >= 1, "an operation after the close fails with an error")
    }

    @Test func concurrentWritersToOneRecordNeverLoseAnUpdateSilently() async throws {
        let f = try Fixture()
        _ = try f.save([note("counter", ["n": .int64(0)])])
        let env = f.dev, pub = f.pub
        // Eight clients read-modify-write with change tags; every success must be reflected, conflicts retried.
        try await onThreads(8) { _ in
            for _ in 0..<25 {
                while true {
                    let current = try env.records.lookup(["counter"], in: pub)[0].get()
                    guard case .int64(let n) = current.fields["n"] else { throw StratusError.badRequest("no n") }
                    let r = try env.records.modify([RecordOperation(.update, note("counter", ["n": .int64(n + 1)], tag: current.recordChangeTag))],
                                           in: pub, actor: Fixture.alice)[0]
                    if r.code == .conflict { continue }
                    #expect(r.error == nil)
                    break
                }
            }
        }
        #expect(try f.dev.records.lookup(["counter"], in: f.pub)[0].get().fields["n"] == .int64(200))
    }

    @Test func readersSeeWholeBatchesOnly() async throws {
        let f = try Fixture()
        let env = f.dev, pub = f.pub
        try await onThreads(2) { role in
            if role == 0 {
                for b in 0..<20 {
                    _ = try env.records.modify((0..<50).map { RecordOperation(.create, note("b\(b)-\($0)", ["batch": .int64(Int64(b))])) }, in: pub, actor: Fixture.alice)
                }
            } else {
                for _ in 0..<50 {
                    var token: String? = nil
                    var count = 0
                    repeat {
                        let page = try env.zones.zoneChanges(in: pub, zoneID: .defaultZone, since: token)
                        count += page.changed.count
                        token = page.syncToken
                        if !page.moreComing { break }
                    } while true
                    #expect(count % 50 == 0, "saw a partial batch: \(count)")
                }
            }
        }
    }
}
