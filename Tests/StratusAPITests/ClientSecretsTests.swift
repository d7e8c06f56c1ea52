import Crypto
import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusTestSupport

/// Apple's web client secret, made by Stratus with the operator's key: the JWT Apple checks (ES256, `kid`, `iss`
/// the team, `sub` the services ID, `aud` Apple, at most six months), kept while it lasts and made again a day
/// before it expires.
@Suite struct ClientSecretsTests {
    static let key = P256.Signing.PrivateKey()
    static func apple(_ key: P256.Signing.PrivateKey = key) throws -> AppleSigningKey {
        try AppleSigningKey(teamID: "TEAM123456", keyID: "KEY9876543", privateKeyPEM: key.pemRepresentation)
    }
    static let client = StandInOpenIDProvider.AppleClient(key: key.publicKey, teamID: "TEAM123456", keyID: "KEY9876543")

    @Test func appleTakesTheSecretAndItIsRemadeBeforeItExpires() throws {
        let secrets = ClientSecrets(), now: Int64 = 1_800_000_000
        let first = try secrets.value(.apple(try Self.apple()), client: "com.example.web", now: now)
        #expect(Self.client.accepts(first, client: "com.example.web", now: now))
        #expect(!Self.client.accepts(first, client: "com.example.other", now: now), "its sub is the services ID")
        #expect(try secrets.value(.apple(try Self.apple()), client: "com.example.web", now: now + 3600) == first, "kept")
        let late = now + ClientSecrets.lifetime - ClientSecrets.renewal + 1
        let renewed = try secrets.value(.apple(try Self.apple()), client: "com.example.web", now: late)
        #expect(renewed != first && Self.client.accepts(renewed, client: "com.example.web", now: now + ClientSecrets.lifetime))
        #expect(!Self.client.accepts(first, client: "com.example.web", now: now + ClientSecrets.lifetime), "the old one ended")
        let other = try secrets.value(.apple(try Self.apple(P256.Signing.PrivateKey())), client: "com.example.web", now: now)
        #expect(!Self.client.accepts(other, client: "com.example.web", now: now), "another key's is not Apple's")
        #expect(try secrets.value(.fixed("s3cret"), client: "x") == "s3cret")
    }

    @Test func appleKeysAreCheckedAsAppleIssuesThem() throws {
        #expect(throws: StratusError.self) { try AppleSigningKey(teamID: "short", keyID: "KEY9876543", privateKeyPEM: Self.key.pemRepresentation) }
        #expect(throws: StratusError.self) { try AppleSigningKey(teamID: "TEAM123456", keyID: "key9876543", privateKeyPEM: Self.key.pemRepresentation) }
        #expect(throws: StratusError.self) { try AppleSigningKey(teamID: "TEAM123456", keyID: "KEY9876543", privateKeyPEM: "not a key") }
    }
}
