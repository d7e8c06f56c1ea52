import Foundation
import StratusServer
import StratusTestSupport
import Synchronization
import Testing
@testable import StratusModel
@testable import StratusStore

/// Automatic indexes on PostgreSQL: a frequent shape gets its composite index, built with CREATE INDEX CONCURRENTLY
/// while another writer keeps writing (no write fails or waits for the build), the index is valid, answers do not
/// change, and a second node on the same database sees it.
@Suite struct PostgresAutoIndexTests {
    @Test func aFrequentShapeGetsItsIndexConcurrentlyUnderWritesAndASecondNodeSeesIt() async throws {
        try await Fixture.with(.postgres, schema: AutoIndexTests.schema) { f throws in
            try AutoIndexTests.fill(f, 3_000, env: f.dev)
            let before = try f.dev.records.query(AutoIndexTests.listing, in: f.pub).records.map(\.recordName)
            for _ in 0..<AutoIndexPolicy().minimumCalls { _ = try f.dev.records.query(AutoIndexTests.listing, in: f.pub) }
            #expect(try f.dev.queryShapes.all().contains { $0.shape == "Item: category = · sort -count" }, "PostgreSQL keeps the shape log too")

            // A writer keeps writing through the build.
            let stop = Atomic(false), written = Atomic(0), failures = Mutex<[String]>([])
            let dev = f.dev
            let writer = Thread {
                var i = 0
                while !stop.load(ordering: .relaxed) {
                    let batch = (0..<20).map { k in StoredRecord(recordName: "w\(i)-\(k)", recordType: "Item", fields: ["category": .string("c\(k % 20)"), "count": .int64(Int64(k))]) }
                    do {
                        let results = try dev.records.modify(batch.map { RecordOperation(.create, $0) }, in: .publicDatabase, actor: Fixture.alice)
                        if results.contains(where: { if case .failed = $0 { true } else { false } }) { failures.withLock { $0.append("a record of batch \(i) failed") } }
                        written.add(20, ordering: .relaxed)
                    } catch { failures.withLock { $0.append("\(error)") } }
                    i += 1
                }
            }
            writer.start()
            QueryShapeKeeper.visit(f.dev)   // what the server does once a minute: starts the build
            var built: AutoIndex?
            for _ in 0..<600 where built == nil {
                usleep(50_000)
                built = try f.dev.queryShapes.autoIndexes().first { $0.isReady }
            }
            stop.store(true, ordering: .relaxed)
            while !writer.isFinished { usleep(10_000) }
            let ai = try #require(built, "the index was not built within 30 s")
            #expect(ai.shape == "Item: category = · sort -count" && ai.equalityFields == ["category"] && ai.orderField == "count")
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            #expect(written.load(ordering: .relaxed) > 0)
            let valid = try f.dev.core.postgresAutocommit { s in try PostgresAutoIndexes.valid(ai.name, s) }
            #expect(valid == true)

            // Answers are what they were: the category asked for, by count from the highest; the records of before the
            // writer started keep their order among themselves.
            let page = try f.dev.records.query(AutoIndexTests.listing, in: f.pub).records
            let counts = page.map { r -> Int64 in if case .int64(let c)? = r.fields["count"] { c } else { -1 } }
            #expect(page.allSatisfy { $0.fields["category"] == .string("c3") } && counts == counts.sorted(by: >))
            let filled = page.map(\.recordName).filter { $0.hasPrefix("r") }
            #expect(filled == before.filter { filled.contains($0) } && !filled.isEmpty)

            let second = try ServerStore(databaseURL: try #require(f.postgresURL), poolSize: 2)
            defer { second.close() }
            #expect(try second.environment(f.container, .development).queryShapes.autoIndexes().contains { $0.name == ai.name && $0.isReady })
        }
    }
}
