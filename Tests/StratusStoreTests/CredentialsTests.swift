import Foundation
import Testing
@testable import StratusModel
@testable import StratusStore

@Suite struct CredentialsTests {
    @Test func usersSignInWithHashedPasswords() async throws {
        let f = try Fixture()
        try await onThreads(1) { _ in
            let u = try f.store.accounts.createUser(container: f.container, email: "Ada@Example.com", password: "analytical engine", firstName: "Ada")
            #expect(u.userRecordName.count == 33 && u.userRecordName.hasPrefix("_"))
            expectError(.exists) { try f.store.accounts.createUser(container: f.container, email: "ada@example.com", password: "another password") }
            expectError(.badRequest) { try f.store.accounts.createUser(container: f.container, email: "not-an-email", password: "long enough") }
            expectError(.badRequest) { try f.store.accounts.createUser(container: f.container, email: "b@example.com", password: "short") }
            #expect(try f.store.accounts.authenticateUser(container: f.container, email: "ada@example.com", password: "analytical engine") == u)
            #expect(try f.store.accounts.authenticateUser(container: f.container, email: "ada@example.com", password: "wrong password") == nil)
            #expect(try f.store.accounts.authenticateUser(container: f.container, email: "nobody@example.com", password: "analytical engine") == nil)
        }
        // Only a salted PBKDF2 hash is stored.
        let raw = try String(contentsOf: f.directory.appendingPathComponent("stratus.sqlite"), encoding: .isoLatin1)
        #expect(!raw.contains("analytical engine"))
    }

    @Test func apiAndWebAuthTokens() throws {
        let f = try Fixture()
        let (token, secret) = try f.store.credentials.createAPIToken(container: f.container, environment: .production, name: "web", allowedOrigins: ["https://a.example"])
        #expect(secret.count == 64 && secret.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(try f.store.credentials.authenticateAPIToken(secret)?.id == token.id)
        #expect(token.allows(origin: "https://a.example") && !token.allows(origin: "https://b.example") && token.allows(origin: nil))
        expectError(.badRequest) { try f.store.credentials.createAPIToken(container: f.container, environment: .production, name: "x", allowedOrigins: ["javascript:alert(1)"]) }
        try f.store.credentials.revokeAPIToken(id: token.id, container: f.container)
        #expect(try f.store.credentials.authenticateAPIToken(secret) == nil)

        let web = try f.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: "_u")
        #expect(try f.store.accounts.authenticateWebAuthToken(web, container: f.container, environment: .development)?.user == "_u")
        let expired = try f.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: "_u", lifetime: -1)
        #expect(try f.store.accounts.authenticateWebAuthToken(expired, container: f.container, environment: .development) == nil)
        try f.store.accounts.revokeWebAuthToken(web)
        #expect(try f.store.accounts.authenticateWebAuthToken(web, container: f.container, environment: .development) == nil)
        // Deleting the container takes its credentials with it.
        let other = try f.store.credentials.createAPIToken(container: f.container, environment: .development, name: "d").secret
        try f.store.deleteContainer(f.container)
        #expect(try f.store.credentials.authenticateAPIToken(other) == nil)
    }

    /// Authentications are cached for a second; a revocation by another process (the CLI beside a running
    /// server) is seen once that second is over, one made through this store at once.
    @Test func cachedCredentialsFollowRevocations() async throws {
        let f = try Fixture()
        let (token, secret) = try f.store.credentials.createAPIToken(container: f.container, environment: .production, name: "cached")
        let web = try f.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: "_u")
        #expect(try f.store.credentials.authenticateAPIToken(secret)?.id == token.id)
        #expect(try f.store.accounts.authenticateWebAuthToken(web, container: f.container, environment: .development)?.user == "_u")
        let cli = try ServerStore(dataDirectory: f.directory)
        try cli.credentials.revokeAPIToken(id: token.id, container: f.container)
        try cli.accounts.revokeWebAuthToken(web)
        try await Task.sleep(for: .milliseconds(1100))
        #expect(try f.store.credentials.authenticateAPIToken(secret) == nil)
        #expect(try f.store.accounts.authenticateWebAuthToken(web, container: f.container, environment: .development) == nil)
    }
}
