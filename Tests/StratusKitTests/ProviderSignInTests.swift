import Foundation
import Synchronization
import StratusKit
import StratusModel
import StratusTestSupport
import Testing

/// Signing in as CloudKit's account does, from StratusKit: a provider's identity token (Sign in with Apple, here a
/// stand-in provider on a real socket) becomes the container's user; `CKAccountChanged` says so, and a sync engine
/// hears `.signIn` and, after an explicit sign-out, `.signOut`.
@Suite(.serialized) struct ProviderSignInTests {
    /// Records the account changes a sync engine reports.
    final class AccountListener: CKSyncEngineDelegate, @unchecked Sendable {
        private let changes = Mutex<[String]>([])
        var heard: [String] { changes.withLock { $0 } }

        func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
            guard case .accountChange(let change) = event else { return }
            let said = switch change.changeType {
            case .signIn(let user): "signIn \(user.recordName)"
            case .signOut(let user): "signOut \(user.recordName)"
            case .switchAccounts(let before, let now): "switch \(before.recordName) \(now.recordName)"
            }
            changes.withLock { $0.append(said) }
        }

        func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext,
                                       syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? { nil }
    }

    @Test func aProviderTokenSignsInAndSigningOutIsHeard() async throws {
        let f = try await KitFixture()
        let idp = try await StandInOpenIDProvider()
        defer { Task { await idp.stop() } }
        try f.app.store.identities.saveProvider(try IdentityProvider(name: "apple", issuer: idp.issuer, clientIDs: ["com.example.app"]),
                                                container: f.container)
        let observer = AccountAndKeysTests.Observer()
        let nonce = UUID().uuidString
        let container = try await CKContainer.signIn(identifier: f.container.rawValue, configuration: f.configuration(.none),
                                                     identityToken: idp.token(subject: "kit.001", nonce: nonce), provider: "apple",
                                                     nonce: nonce, givenName: "Grace", familyName: "Hopper")
        #expect(observer.posts >= 1, "signing in changes the account")
        #expect(try await container.accountStatus() == .available)
        let me = try await container.userRecordID()
        #expect(me.recordName.hasPrefix("_"))

        // A refused token is .notAuthenticated, and signs no one in.
        do {
            _ = try await CKContainer.signIn(identifier: f.container.rawValue, configuration: f.configuration(.none),
                                             identityToken: idp.token(subject: "kit.001", nonce: nonce), provider: "apple", nonce: nonce)
            Issue.record("a replayed nonce signed in")
        } catch let e as CKError {
            #expect(e.code == .notAuthenticated)
        }

        let listener = AccountListener()
        var config = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: nil, delegate: listener)
        config.automaticallySync = false
        let engine = CKSyncEngine(config)
        try await engine.fetchChanges()
        #expect(listener.heard == ["signIn \(me.recordName)"])

        let before = observer.posts
        try await container.signOut()
        #expect(observer.posts > before, "signing out changes the account")
        for _ in 0..<100 where listener.heard.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(listener.heard == ["signIn \(me.recordName)", "signOut \(me.recordName)"])
        #expect(try await container.accountStatus() == .noAccount)
        withExtendedLifetime(engine) {}
    }
}
