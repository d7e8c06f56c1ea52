import Crypto
import Foundation
import StratusKit
import Testing

@Suite struct KitServerToServerTests {
    @Test func aServerToServerKeySignsEveryRequest() async throws {
        let f = try await KitFixture()
        let key = P256.Signing.PrivateKey()
        let registered = try f.app.store.credentials.addServerKey(container: f.container, environment: .development, publicKeyPEM: key.publicKey.pemRepresentation)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kit-key-\(UUID().uuidString).pem")
        try key.pemRepresentation.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let config = CKContainer.Configuration.fromEnvironment([
            "STRATUS_URL": f.serverURL.absoluteString, "STRATUS_KEY_ID": registered.keyID, "STRATUS_PRIVATE_KEY_FILE": file.path,
        ])
        #expect(config.problem == nil)
        let server = CKContainer(identifier: f.container.rawValue, configuration: config)
        let db = server.publicCloudDatabase
        let r = CKRecord(recordType: "Announcement", recordID: CKRecord.ID(recordName: "hello"))
        r["text"] = "from the server"
        _ = try await db.save(r)
        let back = try await f.aliceContainer().publicCloudDatabase.record(for: r.recordID)
        #expect(back["text"] as? String == "from the server")

        // Another key's signature is refused.
        let forged = FileManager.default.temporaryDirectory.appendingPathComponent("kit-key-\(UUID().uuidString).pem")
        try P256.Signing.PrivateKey().pemRepresentation.write(to: forged, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: forged) }
        let bad = CKContainer(identifier: f.container.rawValue, configuration: .fromEnvironment([
            "STRATUS_URL": f.serverURL.absoluteString, "STRATUS_KEY_ID": registered.keyID, "STRATUS_PRIVATE_KEY_FILE": forged.path,
        ]))
        do {
            _ = try await bad.publicCloudDatabase.record(for: r.recordID)
            Issue.record("a forged signature was accepted")
        } catch let e as CKError {
            #expect(e.code == .notAuthenticated)
        }
    }
}
