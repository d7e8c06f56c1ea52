import Foundation
import Testing
@testable import StratusModel
@testable import StratusStore

@Suite struct ConcurrencyTests {
    @Test func concurrentWritersToOneRecordNeverLoseAnUpdateSilently() async throws {
        let f = try Fixture()
        _ = try f.save([note("counter", ["n": .int64(0)])])
        let env = f.dev, pub = f.pub
        // Eight clients read-modify-write with change tags; every success must be reflected, conflicts retried.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var conflicts = 0
                    for _ in 0..<25 {
                        while true {
                            let current = try env.lookup(["counter"], in: pub)[0].get()
                            guard case .int64(let n) = current.fields["n"] else { throw StratusError.badRequest("no n") }
                            let r = try env.modify([RecordOperation(.update, note("counter", ["n": .int64(n + 1)], tag: current.recordChangeTag))],
                                                   in: pub, actor: Fixture.alice)[0]
                            if r.code == .conflict { conflicts += 1; continue }
                            #expect(r.error == nil)
                            break
                        }
                    }
                    return conflicts
                }
            }
            for try await _ in group {}
        }
        #expect(try f.dev.lookup(["counter"], in: f.pub)[0].get().fields["n"] == .int64(200))
    }

    @Test func readersSeeWholeBatchesOnly() async throws {
        let f = try Fixture()
        let env = f.dev, pub = f.pub
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for b in 0..<20 {
                    _ = try env.modify((0..<50).map { RecordOperation(.create, note("b\(b)-\($0)", ["batch": .int64(Int64(b))])) }, in: pub, actor: Fixture.alice)
                }
            }
            group.addTask {
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
            for try await _ in group {}
        }
    }
}
