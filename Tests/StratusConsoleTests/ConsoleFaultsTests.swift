import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The Faults page: switch a fault on (CSRF-guarded, audited), see it refused with a reason when it is wrong, see
/// it listed, watch it fire, clear it.
@Suite struct ConsoleFaultsTests {
    @Test func switchListFireAndClear() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Faults")
        try await offPool { try f.app.store.createContainer(container) }
        let base = "/console/\(container.rawValue)/development/faults"
        #expect(try await s.get(base).html.contains("No faults in this environment."))
        #expect(try await s.post(base, [("operation", "zones/list"), ("error", "ZONE_BUSY"), ("count", "1")], csrf: false).status == 403)
        let bad = try await s.post(base, [("operation", "zones/list"), ("error", "ZONE_BUSY"), ("count", "1"), ("probability", "0.5")])
        #expect(bad.status == 400 && bad.html.contains("either a count or a probability"))
        #expect(try await s.post(base, [("operation", "zones/list"), ("error", "THROTTLED"), ("count", "2"), ("retryAfter", "3")]).status == 303)
        let listed = try await s.get(base)
        #expect(listed.html.contains("<code>zones/list</code></td><td>THROTTLED</td><td>before</td><td>all</td><td>next 2 requests</td><td>3 s</td>"), "\(listed.html.suffix(2500))")
        let fired = f.app.store.faults.claimFault(container, .development, .zonesList)
        #expect(fired?.kind == .throttled && fired?.retryAfter == 3)
        let id = try #require(fired?.id)
        #expect(try await s.get(base).html.contains("next 1 requests"))
        #expect(try await s.post("\(base)/\(id)/clear", []).status == 303)
        #expect(try await s.get(base).html.contains("No faults in this environment."))
        #expect(try await s.get("/console/audit").html.contains("inject fault"))
    }

    @Test func theConflictLabAndScopedFaultsFromThePage() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Lab")
        try await offPool { try f.app.store.createContainer(container) }
        let base = "/console/\(container.rawValue)/development/faults"
        let page = try await s.get(base)
        #expect(page.html.contains("after-commit") && page.html.contains("per-record") && page.html.contains("conflict lab"))
        let lab = try await s.post(base, [("operation", "records/modify"), ("error", "CONFLICT"), ("where", "per-record"), ("count", "1"),
                                          ("recordName", "note-1"), ("serverFields", #"{"title":{"value":"x","type":"STRING"}}"#)])
        #expect(lab.status == 303)
        let bad = try await s.post(base, [("operation", "records/modify"), ("error", "CONFLICT"), ("where", "before"), ("count", "1")])
        #expect(bad.status == 400 && bad.html.contains("conflict lab names the record"))
        #expect(try await s.post(base, [("operation", "records/query"), ("error", "THROTTLED"), ("where", "after-commit"), ("count", "2"), ("user", "_bob")]).status == 303)
        let listed = try await s.get(base)
        #expect(listed.html.contains("<td>CONFLICT</td><td>per-record</td><td>record note-1</td>"), "\(listed.html.suffix(2500))")
        #expect(listed.html.contains("<td>THROTTLED</td><td>after-commit</td><td>user _bob</td>"))
        let fault = try #require(try f.app.store.faults.all(container: container).first { $0.kind == .conflict })
        #expect(fault.serverFields?.contains("title") == true && fault.stage == .perRecord)
    }

    /// A duration no fault can have is refused with a reason; the arithmetic of a huge one used to kill the server.
    @Test func anOutOfRangeLifetimeIsRefusedAndTheServerLives() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Bounds")
        try await offPool { try f.app.store.createContainer(container) }
        let base = "/console/\(container.rawValue)/development/faults"
        for expires in ["9223372036854775807", "-9223372036854775808", "9300000000000000", "0", "86401", "soon"] {
            let refused = try await s.post(base, [("operation", "zones/list"), ("error", "ZONE_BUSY"), ("count", "1"), ("expiresIn", expires)])
            #expect(refused.status == 400 && (refused.html.contains("1 to 86400 seconds") || refused.html.contains("whole number")), "\(expires): \(refused.status)")
        }
        #expect(try await s.get(base).html.contains("No faults in this environment."))
        #expect(try await s.post(base, [("operation", "zones/list"), ("error", "ZONE_BUSY"), ("count", "1"), ("expiresIn", "86400")]).status == 303)
    }
}
