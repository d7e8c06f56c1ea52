import Foundation
import GRDB
import StratusTestSupport
import Testing
@testable import StratusModel
@testable import StratusStore

/// A read never writes: queries (however many, whatever their shape), lookups, change feeds, counts and the query
/// shapes report leave the environment's database as it was — another connection sees no commit. Query shapes are
/// counted in memory and written by the server's keeper (`recordQueryShapes`), which is a write and says so.
@Suite struct ReadsNeverWriteTests {
    @Test func readsLeaveTheDatabaseAsItWas() async throws {
        try await offPool {
            let f = try Fixture(schema: AutoIndexTests.schema)
            let file = f.directory.appendingPathComponent("reads.sqlite")
            let env = try EnvironmentStore(container: f.container, environment: .development, file: file,
                                           assetsDirectory: f.directory.appendingPathComponent("reads-assets"), durability: .relaxed,
                                           autoIndexPolicy: AutoIndexPolicy(minimumCalls: 1, minimumStepsPerRow: 1))
            _ = try env.schema.applySchema(try SchemaParser.parse(AutoIndexTests.schema), protecting: nil)
            try AutoIndexTests.fill(f, 500, env: env)
            let token = try env.zones.zoneChanges(in: f.pub, zoneID: .defaultZone, since: nil).syncToken

            // `data_version` moves when a connection other than this one commits.
            let observer = try DatabaseQueue(path: file.path)
            func version() throws -> Int { try observer.read { try Int.fetchOne($0, sql: "PRAGMA data_version") ?? -1 } }
            let before = try version()

            for i in 0..<50 {
                _ = try env.records.query(AutoIndexTests.listing, in: f.pub)
                _ = try env.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("count"), .greaterThan, .int64(Int64(i)))],
                                        sorts: [QuerySort(.field("score"), ascending: true)], resultsLimit: 10), in: f.pub)
            }
            _ = try env.records.lookup(["r000001", "r000002", "missing"], in: f.pub)
            _ = try env.zones.zoneChanges(in: f.pub, zoneID: .defaultZone, since: nil)
            _ = try env.zones.zoneChanges(in: f.pub, zoneID: .defaultZone, since: token)
            _ = try env.zones.databaseChanges(in: f.pub, since: nil)
            _ = try env.zones.all(in: f.pub)
            _ = try env.records.recordCount()
            let shapes = try env.queryShapes.all()
            _ = try env.queryShapes.queriedShapes()
            _ = try env.queryShapes.autoIndexes()
            #expect(try version() == before, "a read committed to the database")
            #expect(shapes.first?.calls == 50, "the report includes what was counted in memory")

            // The keeper's write is where shapes are recorded and indexes looked after.
            env.queryShapes.recordQueryShapes()
            #expect(try version() != before)
            #expect(try env.queryShapes.all().first?.calls == 50, "recorded once, not counted twice")
        }
    }
}
