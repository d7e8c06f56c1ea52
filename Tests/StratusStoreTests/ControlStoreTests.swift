import Crypto
import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// Which database a store test runs on.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }

    /// A fresh store on this backend and a cleanup; nil (with a line that says so) when PostgreSQL is not there
    /// outside CI.
    /// Made on a thread of its own (creating a database and migrating it block for a while), and cleaned up on
    /// one: never on Swift's cooperative threads, which the run's in-process servers answer on.
    func makeStore() async throws -> (store: ServerStore, cleanup: @Sendable () -> Void)? {
        let backend = self
        let made: (store: ServerStore, cleanup: @Sendable () -> Void)?? = try await offPool {
            switch backend {
            case .sqlite:
                let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-control-\(UUID().uuidString)")
                let store = try ServerStore(dataDirectory: dir, durability: .relaxed)
                return (store, { Thread { store.close(); try? FileManager.default.removeItem(at: dir) }.start() })
            case .postgres:
                guard let db = try TestPostgres.freshDatabaseBlocking() else { return .some(nil) }
                let store = try ServerStore(databaseURL: db.url, poolSize: 4)
                return (store, { Thread { store.close(); db.drop() }.start() })
            }
        }
        guard let made, let store = made else {
            #expect(!TestPostgres.required, "STRATUS_TEST_POSTGRES_URL is required here")
            return nil
        }
        return store
    }
}

/// The control data (containers, credentials, server keys, admins, faults) behaves alike on SQLite and PostgreSQL.
@Suite struct ControlStoreTests {
    @Test(arguments: Backend.allCases) func containersTokensUsersAndKeys(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Control")
            try store.createContainer(c)
            expectError(.exists) { try store.createContainer(c) }
            #expect(try store.containers().map(\.id) == [c] && store.containerExists(c))

            let (token, secret) = try store.credentials.createAPIToken(container: c, environment: .production, name: "web", allowedOrigins: ["https://a.example"])
            #expect(try store.credentials.authenticateAPIToken(secret) == token)
            #expect(try store.credentials.apiTokens(container: c, environment: .production) == [token])
            try store.credentials.revokeAPIToken(id: token.id, container: c)
            #expect(try store.credentials.authenticateAPIToken(secret) == nil)
            expectError(.notFound) { try store.credentials.revokeAPIToken(id: token.id + 100, container: c) }

            // Emails are one per user whatever their case, and sign in whatever their case.
            let ada = try store.accounts.createUser(container: c, email: "Ada@Example.com", password: "analytical engine", firstName: "Ada", lastName: "L")
            expectError(.exists) { try store.accounts.createUser(container: c, email: "ada@example.COM", password: "another password") }
            #expect(try store.accounts.authenticateUser(container: c, email: "ADA@example.com", password: "analytical engine") == ada)
            #expect(try store.accounts.authenticateUser(container: c, email: "ada@example.com", password: "wrong password") == nil)
            #expect(try store.accounts.user(container: c, email: "ada@EXAMPLE.com") == ada)
            try store.accounts.setDiscoverable(container: c, userRecordName: ada.userRecordName, true)
            #expect(try store.accounts.user(container: c, userRecordName: ada.userRecordName)?.discoverable == true)

            let web = try store.accounts.createWebAuthToken(container: c, environment: .development, userRecordName: ada.userRecordName)
            #expect(try store.accounts.authenticateWebAuthToken(web, container: c, environment: .development)?.user == ada.userRecordName)
            try store.accounts.revokeWebAuthToken(web)
            #expect(try store.accounts.authenticateWebAuthToken(web, container: c, environment: .development) == nil)

            let pem = P256.Signing.PrivateKey().publicKey.pemRepresentation
            let key = try store.credentials.addServerKey(container: c, environment: .development, publicKeyPEM: pem, notes: "ci")
            expectError(.exists) { try store.credentials.addServerKey(container: c, environment: .development, publicKeyPEM: pem) }
            #expect(try store.credentials.serverKey(id: key.keyID) == key)
            #expect(try store.credentials.serverKeys(container: c, environment: .development) == [key])
            try store.credentials.revokeServerKey(id: key.keyID, container: c)
            #expect(try store.credentials.serverKey(id: key.keyID) == nil)

            // Deleting the container takes its credentials with it.
            let (_, second) = try store.credentials.createAPIToken(container: c, environment: .development, name: "cli")
            try store.deleteContainer(c)
            #expect(try store.credentials.authenticateAPIToken(second) == nil && store.accounts.users(container: c).isEmpty && !store.containerExists(c))
            expectError(.notFound) { try store.deleteContainer(c) }
        }
    }

    @Test(arguments: Backend.allCases) func adminsSessionsAndTheAuditLog(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            #expect(try !store.admins.hasAdmins())
            let admin = try store.admins.createAdmin(email: "Root@Example.com", password: "correct horse battery")
            expectError(.exists) { try store.admins.createAdmin(email: "root@example.com", password: "correct horse battery") }
            #expect(try store.admins.hasAdmins() && store.admins.all() == [admin])
            #expect(try store.admins.authenticateAdmin(email: "root@EXAMPLE.com", password: "correct horse battery") == admin)
            let (token, csrf) = try store.admins.createAdminSession(admin)
            #expect(try store.admins.adminSession(token)?.csrf == csrf)
            try store.admins.resetAdminPassword(email: "root@example.com", password: "another long password")
            #expect(try store.admins.adminSession(token) == nil, "a new password ends the sessions")
            try store.admins.audit(AuditEntry(at: 1, admin: admin.email, action: "first", container: nil, environment: nil, detail: "it's \"quoted\""))
            try store.admins.audit(AuditEntry(at: 2, admin: admin.email, action: "second", container: "iCloud.x", environment: "development", detail: ""))
            #expect(try store.admins.auditLog().map(\.action) == ["second", "first"])
            #expect(try store.admins.auditLog().last?.detail == "it's \"quoted\"")
            try store.admins.deleteAdmin(email: "ROOT@example.com")
            #expect(try !store.admins.hasAdmins())
        }
    }

    @Test(arguments: Backend.allCases) func faultsFireByCountAndClear(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Faults")
            try store.createContainer(c)
            let now = WallClock.nowMillis()
            let f = try store.faults.addFault(Fault(container: c, environment: .development, operation: "records/query", kind: .zoneBusy, remaining: 2,
                                             probability: nil, retryAfter: 3, createdAt: now, expiresAt: now + 60_000))
            #expect(store.faults.claimFault(c, .development, .recordsQuery)?.id == f.id)
            #expect(store.faults.claimFault(c, .development, .recordsQuery)?.id == f.id)
            #expect(store.faults.claimFault(c, .development, .recordsQuery) == nil, "a count of 2 fires twice")
            #expect(try store.faults.all(container: c).first?.injected == 2)
            #expect(try store.faults.all().count == 1)
            try store.faults.clearFaults(container: c, environment: .development)
            #expect(try store.faults.all(container: c).isEmpty)
        }
    }

    /// Two stores on one database are two nodes: what one writes, the other reads, and both migrate safely at once.
    @Test func twoStoresOnOnePostgresShareTheControlData() async throws {
        guard let db = try await TestPostgres.freshDatabase() else { #expect(!TestPostgres.required); return }
        defer { db.drop() }
        let stores = try await withThrowingTaskGroup(of: ServerStore.self) { group in
            for _ in 0..<2 { group.addTask { try await offPool { try ServerStore(databaseURL: db.url, poolSize: 2) } } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { Thread { stores.forEach { $0.close() } }.start() }
        // Store calls block: on a thread of their own, as the other store tests run.
        let refused = try await offPool { () throws -> Bool in
            let c = try ContainerID("iCloud.com.example.Nodes")
            try stores[0].createContainer(c)
            let (token, secret) = try stores[0].credentials.createAPIToken(container: c, environment: .production, name: "n1")
            guard try stores[1].containerExists(c), try stores[1].credentials.authenticateAPIToken(secret) != nil else { return false }
            // Node 2 has the token cached for a minute, so only the notice (NOTIFY) can make it refuse the token
            // within the wait: no wall-clock bound that a loaded machine could miss.
            stores[1].credentials.apiTokenCache.lifetime = .seconds(60)
            stores[1].credentials.apiTokenCache.removeAll()
            guard try stores[1].credentials.authenticateAPIToken(secret) != nil else { return false }
            try stores[0].credentials.revokeAPIToken(id: token.id, container: c)
            let revoked = Date()
            while Date().timeIntervalSince(revoked) < 30 {
                if try stores[1].credentials.authenticateAPIToken(secret) == nil { return true }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return false
        }
        #expect(refused, "node 2 still accepted a token node 1 revoked")
    }

    /// PostgreSQL restarting under a store: requests meanwhile get SERVICE_UNAVAILABLE (with retryAfter), never a
    /// crash or a hang, and the store carries on by itself once it is back.
    @Test func aRestartingPostgresIsServiceUnavailableThenHeals() async throws {
        guard TestPostgres.url != nil else { #expect(!TestPostgres.required); return }
        let cluster = try ThrowawayPostgres()
        defer { cluster.stop() }
        try await offPool {
            let store = try ServerStore(databaseURL: cluster.url, poolSize: 2)
            defer { store.close() }
            let c = try ContainerID("iCloud.com.example.Restart")
            try store.createContainer(c)
            let (_, secret) = try store.credentials.createAPIToken(container: c, environment: .development, name: "t")
            try ThrowawayPostgres.run(["stop-keep", cluster.directory])
            do {
                _ = try store.containers()
                Issue.record("a request with PostgreSQL down succeeded")
            } catch let e as StratusError {
                #expect(e.code == .serviceUnavailable && e.retryAfter != nil, "\(e)")
            }
            try ThrowawayPostgres.run(["start-again", cluster.directory])
            var healed = false
            for _ in 0..<50 where !healed {
                healed = (try? store.containers().map(\.id)) == [c]
                if !healed { usleep(100_000) }
            }
            #expect(healed, "the store reconnects by itself")
            #expect(try store.credentials.authenticateAPIToken(secret) != nil)
        }
    }

    @Test func anUnreachablePostgresIsServiceUnavailable() async throws {
        guard TestPostgres.url != nil else { #expect(!TestPostgres.required); return }
        try await offPool {
            expectError(.serviceUnavailable) { try ServerStore(databaseURL: "postgresql://stratus:secret@127.0.0.1:1/none") }
        }
    }
}
