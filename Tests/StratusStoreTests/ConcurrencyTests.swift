import Foundation
import Testing
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
    @Test func concurrentWritersToOneRecordNeverLoseAnUpdateSilently() async throws {
        let f = try Fixture()
        _ = try f.save([note("counter", ["n": .int64(0)])])
        let env = f.dev, pub = f.pub
        // Eight clients read-modify-write with change tags; every success must be reflected, conflicts retried.
        try await onThreads(8) { _ in
            for _ in 0..<25 {
                while true {
                    let current = try env.lookup(["counter"], in: pub)[0].get()
                    guard case .int64(let n) = current.fields["n"] else { throw StratusError.badRequest("no n") }
                    let r = try env.modify([RecordOperation(.update, note("counter", ["n": .int64(n + 1)], tag: current.recordChangeTag))],
                                           in: pub, actor: Fixture.alice)[0]
                    if r.code == .conflict { continue }
                    #expect(r.error == nil)
                    break
                }
            }
        }
        #expect(try f.dev.lookup(["counter"], in: f.pub)[0].get().fields["n"] == .int64(200))
    }

    @Test func readersSeeWholeBatchesOnly() async throws {
        let f = try Fixture()
        let env = f.dev, pub = f.pub
        try await onThreads(2) { role in
            if role == 0 {
                for b in 0..<20 {
                    _ = try env.modify((0..<50).map { RecordOperation(.create, note("b\(b)-\($0)", ["batch": .int64(Int64(b))])) }, in: pub, actor: Fixture.alice)
                }
            } else {
                for _ in 0..<50 {
                    var token: String? = nil
                    var count = 0
                    repeat {
                        let page = try env.zoneChanges(in: pub, zoneID: .defaultZone, since: token)
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
