import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore
import StratusTestSupport

/// Scoped admin tokens: CI changes a remote server with exactly its token's role. A developer token imports
/// Development's schema and is refused Production's deploy, snapshots and faults; an admin token deploys; a token
/// of another container, a revoked one or an expired one does nothing.
@Suite struct AdminTokenTests {
    static let schema = "DEFINE SCHEMA\n    RECORD TYPE Note (\n        \"___recordID\" REFERENCE QUERYABLE,\n        title STRING QUERYABLE\n    );\n"

    @Test func eachTokenDoesWhatItsRoleMayAndNoMore() async throws {
        let f = try await APIFixture()
        let c = f.container
        let store = f.app.store
        let dev = try store.admins.createToken(name: "ci", container: c, role: .developer, expiresAt: nil, by: "test").secret
        let adm = try store.admins.createToken(name: "release", container: c, role: .admin, expiresAt: nil, by: "test").secret
        let viewer = try store.admins.createToken(name: "dashboards", container: nil, role: .viewer, expiresAt: nil, by: "test").secret
        let other = try store.admins.createToken(name: "other", container: try ContainerID("iCloud.com.example.Other"),
                                                 role: .owner, expiresAt: nil, by: "test").secret
        let t = FaultInjectionTests()
        let base = "containers/\(c.rawValue)"

        // No --admin-token-file: the endpoints answer scoped tokens only; a stranger's bearer is refused.
        #expect(try await t.admin(f, "POST", "\(base)/development/schema", Self.schema, token: "not-a-token").0 == 401)
        let viewed = try await t.admin(f, "POST", "\(base)/development/schema", Self.schema, token: viewer)
        #expect(viewed.0 == 403 && viewed.1.contains("needs the developer role"), "\(viewed.1)")
        #expect(try await t.admin(f, "GET", "\(base)/schema-check", token: viewer).0 == 200, "a viewer reads")
        #expect(try await t.admin(f, "POST", "\(base)/development/schema", Self.schema, token: other).0 == 403)

        let imported = try await t.admin(f, "POST", "\(base)/development/schema", Self.schema, token: dev)
        #expect(imported.0 == 200 && imported.1.contains("Note"), "\(imported.1)")
        let refused = try await t.admin(f, "POST", "\(base)/deploy", token: dev)
        #expect(refused.0 == 403 && refused.1.contains("needs the admin role"), "\(refused.1)")
        #expect(try store.environment(c, .production).schema.current().recordTypes.isEmpty, "nothing was deployed")
        #expect(try await t.admin(f, "POST", "\(base)/production/snapshot", "{}", token: dev).0 == 403)
        let prodFault = #"{"container":"\#(c.rawValue)","environment":"production","operation":"records/modify","error":"THROTTLED"}"#
        #expect(try await t.admin(f, "POST", "faults", prodFault, token: dev).0 == 403)
        #expect(try await t.admin(f, "POST", "containers", #"{"container":"iCloud.com.example.New"}"#, token: dev).0 == 403)

        let deployed = try await t.admin(f, "POST", "\(base)/deploy", token: adm)
        #expect(deployed.0 == 200, "\(deployed.1)")
        #expect(try store.environment(c, .production).schema.current().recordTypes.map(\.name).contains("Note"))
        #expect(try store.admins.auditLog().contains { $0.admin == "admin token release" && $0.action == "deploy" })

        // Revoked, or expired: nothing.
        let id = try #require(try store.admins.tokens().first { $0.name == "ci" }?.id)
        try store.admins.revokeToken(id)
        #expect(try await t.admin(f, "POST", "\(base)/development/schema", Self.schema, token: dev).0 == 401)
        let soon = try store.admins.createToken(name: "soon", container: c, role: .admin, expiresAt: WallClock.nowMillis() + 50,
                                                by: "test").secret
        try await Task.sleep(for: .milliseconds(120))
        #expect(try await t.admin(f, "POST", "\(base)/deploy", token: soon).0 == 401)
        #expect(!(try store.admins.tokens().map(\.name).contains { $0.contains(dev) }), "no secret is kept or listed")
    }

    /// The server-wide `--admin-token-file` token stays an owner's.
    @Test func theServerTokenIsAnOwners() async throws {
        let f = try await APIFixture { $0.adminToken = FaultInjectionTests.adminToken }
        let t = FaultInjectionTests()
        _ = try await t.admin(f, "POST", "containers/\(f.container.rawValue)/development/schema", Self.schema)
        #expect(try await t.admin(f, "POST", "containers/\(f.container.rawValue)/deploy").0 == 200)
    }
}
