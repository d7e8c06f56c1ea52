import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore
import StratusTestSupport

/// A server that has served many containers keeps open only the environments in use: an unused one is closed and
/// gives back its connections, and the next request to it opens it again.
@Suite struct EnvironmentReleaseTests {
    @Test func unusedEnvironmentsAreClosedAndOpenAgainWhenAskedFor() async throws {
        let f = try await APIFixture()
        let store = f.app.store
        let containers = try (0..<40).map { try ContainerID("iCloud.com.example.Many\($0)") }
        let tokens = try await offPool {
            try containers.map { c -> String in
                try store.createContainer(c)
                return try store.credentials.createAPIToken(container: c, environment: .development, name: "app").secret
            }
        }
        for (c, token) in zip(containers, tokens) {
            let r = try await f.call("records/query", #"{"query":{"recordType":"Missing"}}"#, token: token, rawQuery: "ckAPIToken=\(token)", container: c)
            #expect(r.status == 400 || r.status == 200, "\(r.text)")
        }
        #expect(store.openEnvironments().count >= 40)
        // Held by nobody and unused since: closed. The server's own passes (webhook deliveries, telemetry, query
        // shapes) hold every open environment while they look at them, so a release that meets one of them closes
        // the rest on a later turn, as the server's releaser does.
        var closed = 0
        let deadline = ContinuousClock.now + .seconds(30)
        repeat {
            closed += try await offPool { store.releaseIdleEnvironments(after: .zero) }
            if store.openEnvironments().count <= 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        #expect(closed >= 40)
        #expect(store.openEnvironments().count <= 2)
        // One in use is never closed: a stream holds its environment.
        let held = try store.environment(containers[0], .development)
        #expect(try await offPool { store.releaseIdleEnvironments(after: .zero) } == 0 || !store.openEnvironments().isEmpty)
        #expect(store.openEnvironments().contains { $0 === held })
        // The next request opens it again, as it was.
        let again = try await f.call("zones/list", token: tokens[5], rawQuery: "ckAPIToken=\(tokens[5])", container: containers[5])
        #expect(again.status == 200, "\(again.text)")
        let metrics = try await f.session.data(from: URL(string: "\(f.app.url)-/metrics")!).0
        #expect(String(decoding: metrics, as: UTF8.self).contains("stratus_open_environments "))
    }
}
