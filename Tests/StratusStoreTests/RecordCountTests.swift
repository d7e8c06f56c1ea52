import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// The counters behind the console's record counts follow every way records come and go.
@Suite struct RecordCountTests {
    @Test(arguments: Backend.allCases) func countersFollowCreatesDeletesCascadesZonesAndTypes(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.save((0..<250).map { note("n\($0)") })
            #expect(try f.dev.records.recordCount() == 250)
            // An update is not a new record; a re-created name after a delete counts again.
            let n1 = try f.dev.records.lookup(["n1"], in: f.pub)[0].get()
            _ = try f.one(.update, note("n1", ["title": .string("x")], tag: n1.recordChangeTag))
            _ = try f.one(.forceDelete, note("n2"))
            #expect(try f.dev.records.recordCount() == 249)
            _ = try f.one(.create, note("n2"))
            #expect(try f.dev.records.recordCountsByType(in: f.pub, zoneID: .defaultZone) == ["Note": 250])

            // A failed atomic batch changes nothing.
            let zone = ZoneID(zoneName: "Work")
            try f.dev.zones.createZone(zone, in: f.alicePrivate)
            _ = try f.save((0..<10).map { note("p\($0)") }, database: f.alicePrivate, zone: zone)
            let batch = [RecordOperation(.create, note("p100")), RecordOperation(.create, note("p1"))]
            _ = try? f.dev.records.modify(batch, in: f.alicePrivate, zoneID: zone, atomic: true, actor: Fixture.alice)
            #expect(try f.dev.records.recordCountsByZone(in: f.alicePrivate) == ["Work": 10])
            #expect(try f.dev.records.recordCount() == 260)

            try f.dev.zones.deleteZone(zone, in: f.alicePrivate)
            #expect(try f.dev.records.recordCountsByZone(in: f.alicePrivate).isEmpty)
            #expect(try f.dev.records.recordCount() == 250)

            // Deleting the type in Development removes its records, and their count.
            try f.store.lifecycle.importSchema(Schema(), into: f.container)
            #expect(try f.dev.records.recordCount() == 0)
        }
    }
}
