import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// `stratus check` on either engine: an environment written through the store checks clean, assets and deletions
/// included; each invariant broken behind the store's back (a counter, the change log, an asset's references) is
/// named, and nothing is changed by looking.
@Suite struct ConsistencyCheckTests {
    @Test(arguments: Backend.allCases) func aCleanEnvironmentChecksCleanAndEachBrokenInvariantIsNamed(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.save((0..<20).map { note("n\($0)") })
            let asset = try f.dev.assets.uploadAsset(Data("a picture".utf8))
            _ = try f.dev.records.modify([RecordOperation(.create, StoredRecord(recordName: "photo", recordType: "Photo", fields: ["image": .asset(asset)]))],
                                         in: .publicDatabase, actor: Fixture.alice)
            _ = try f.one(.forceDelete, note("n19"))
            let clean = try f.dev.consistency.run()
            #expect(clean.problems.isEmpty, "\(clean.problems)")
            #expect(try f.prod.consistency.run().problems.isEmpty)

            try f.dev.core.write { s, _ in
                try s.execute("UPDATE record_counts SET count = count + 5 WHERE type_id = (SELECT min(type_id) FROM record_counts)", [])
                try s.execute("DELETE FROM record_log WHERE record_name = 'n3'", [])
                try s.execute("UPDATE assets SET refs = refs + 2", [])
                try s.execute("UPDATE change_counters SET value = value - 10 WHERE scope = 'public'", [])
            }
            let broken = try f.dev.consistency.run().problems
            #expect(broken.contains { $0.contains("counted") && $0.contains("holds") }, "\(broken)")
            #expect(broken.contains { $0.contains("no live entry in the change log") }, "\(broken)")
            #expect(broken.contains { $0.contains("asset \(asset.fileChecksum): reference count 3, named by 1") }, "\(broken)")
            #expect(broken.contains { $0.contains("the public database") && $0.contains("past its change counter") }, "\(broken)")
            // Looking changed nothing: the same problems, and the records still read.
            #expect(try f.dev.consistency.run().problems == broken)
            #expect(try f.dev.records.lookup(["n1"], in: f.pub)[0].get().recordName == "n1")
        }
    }

    /// The control data checks clean, and a credential whose container is gone is named (both engines).
    @Test(arguments: Backend.allCases) func theControlDataIsCheckedToo(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.store.credentials.createAPIToken(container: f.container, environment: .development, name: "app")
            let clean = try ControlCheck(f.store).run()
            #expect(clean.problems.isEmpty, "\(clean.problems)")
            try f.store.control.write { s in _ = try s.execute("DELETE FROM containers", []) }
            let broken = try ControlCheck(f.store).run().problems
            #expect(broken == ["1 API token of container \(f.container.rawValue), which does not exist"], "\(broken)")
        }
    }

    @Test func sqliteRunsItsIntegrityCheckAndPostgreSQLSaysWhetherAmcheckRan() async throws {
        try await Fixture.with(.sqlite) { f throws in
            let report = try f.dev.consistency.run()
            #expect(report.problems.isEmpty && report.notes.isEmpty)
        }
        try await Fixture.with(.postgres) { f throws in
            _ = try f.save((0..<20).map { note("n\($0)") })
            let before = try f.dev.consistency.run()
            #expect(before.problems.isEmpty, "\(before.problems)")
            // Where the server lets this test install amcheck (contrib ships with PostgreSQL), it runs on every index.
            let installed = (try? f.dev.core.write { s, _ in try s.execute("CREATE EXTENSION IF NOT EXISTS amcheck SCHEMA public", []) }) != nil
            let report = try f.dev.consistency.run()
            #expect(report.problems.isEmpty, "\(report.problems)")
            #expect(installed ? report.notes.isEmpty : report.notes.contains { $0.contains("amcheck is not installed") }, "\(report.notes)")
        }
    }
}
