import Foundation
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// Faults, snapshots and restores of Production reach real users' data: they need the operator's explicit opt-in
/// (`--allow-production-admin`), and every admin action from the command line goes to the audit log.
@Suite struct ProductionAdminTests {
    @Test func productionFaultsAndSnapshotsNeedTheOptInAndAreAudited() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let d = ["--data", data.path]
        let c = "iCloud.com.example.Prod"
        #expect(try await Executables.run("stratus", ["container", "create", c] + d).status == 0)
        let fault = ["faults", "set", "--container", c, "--environment", "production", "--operation", "records/modify", "--error", "INTERNAL_ERROR", "--probability", "1"] + d
        let refused = try await Executables.run("stratus", fault)
        #expect(refused.status == 1 && refused.stderr.contains("--allow-production-admin"), "\(refused.stderr)")
        let snapshot = try await Executables.run("stratus", ["snapshot", "--container", c, "--environment", "production"] + d)
        #expect(snapshot.status == 1 && snapshot.stderr.contains("--allow-production-admin"), "\(snapshot.stderr)")
        // Development needs nothing; Production with the flag is allowed.
        #expect(try await Executables.run("stratus", ["faults", "set", "--container", c, "--environment", "development", "--operation", "records/modify",
                                                       "--error", "THROTTLED", "--count", "1"] + d).status == 0)
        #expect(try await Executables.run("stratus", fault + ["--allow-production-admin"]).status == 0)
        #expect(try await Executables.run("stratus", ["faults", "clear", "--container", c] + d).status == 0)
        let log = try await Executables.offPool { try ServerStore(dataDirectory: data).admins.auditLog() }
        let actions = log.map { "\($0.admin.hasPrefix("command line") ? "cli" : $0.admin) \($0.action) \($0.environment ?? "-")" }
        for expected in ["cli create container -", "cli add fault development", "cli add fault production", "cli clear faults -"] {
            #expect(actions.contains(expected), "\(actions)")
        }
    }
}
