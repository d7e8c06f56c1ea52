import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore

@Suite struct ServerToServerTests {
    /// Signs a request exactly as CloudKit's documentation describes.
    static func signed(_ f: APIFixture, key: P256.Signing.PrivateKey, keyID: String, path: String, body: String?, db: String = "public",
                       date: Date = Date(), signQuery: Bool = false, emptyHash: Bool = false, query: String = "") -> URLRequest {
        let subpath = "/database/1/\(f.container.rawValue)/development/\(db)/\(path)"
        let full = subpath + (query.isEmpty ? "" : "?" + query)
        var req = URLRequest(url: URL(string: "\(f.app.url.dropLast())\(full)")!)
        let data = Data((body ?? "").utf8)
        req.httpMethod = body == nil ? "GET" : "POST"
        if let body { req.httpBody = Data(body.utf8) }
        let f8601 = ISO8601DateFormatter()
        let dateText = f8601.string(from: date)
        let hash = emptyHash ? "" : Data(SHA256.hash(data: data)).base64EncodedString()
        let message = "\(dateText):\(hash):\(signQuery ? full : subpath)"
        let signature = try! key.signature(for: Data(message.utf8)).derRepresentation.base64EncodedString()
        req.setValue(keyID, forHTTPHeaderField: "X-Apple-CloudKit-Request-KeyID")
        req.setValue(dateText, forHTTPHeaderField: "X-Apple-CloudKit-Request-ISO8601Date")
        req.setValue(signature, forHTTPHeaderField: "X-Apple-CloudKit-Request-SignatureV1")
        return req
    }

    static func send(_ f: APIFixture, _ req: URLRequest) async throws -> (Int, JSON) {
        let (d, r) = try await f.session.data(for: req)
        return ((r as! HTTPURLResponse).statusCode, (try? JSON.parse(d)) ?? .null)
    }

    @Test func signedRequestsActOnThePublicDatabaseAsTheKey() async throws {
        let f = try await APIFixture()
        let key = P256.Signing.PrivateKey()
        let registered = try f.app.store.credentials.addServerKey(container: f.container, environment: .development, publicKeyPEM: key.publicKey.pemRepresentation)
        #expect(registered.keyID.count == 64 && registered.keyID.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        let create = #"{"operations":[{"operationType":"create","record":{"recordName":"s2s","recordType":"Note","fields":{"t":{"value":"from a server"}}}}]}"#
        let (status, json) = try await Self.send(f, Self.signed(f, key: key, keyID: registered.keyID, path: "records/modify", body: create))
        #expect(status == 200)
        #expect(json.records.first?["created"]?["userRecordName"]?.string == registered.userRecordName)
        // With the query string in the signed subpath (as CloudKit JS signs), and a bodyless GET hashed as "".
        let q = #"{"query":{"recordType":"Note"}}"#
        #expect(try await Self.send(f, Self.signed(f, key: key, keyID: registered.keyID, path: "records/query", body: q, signQuery: true, query: "ckjsVersion=2.6")).0 == 200)
        #expect(try await Self.send(f, Self.signed(f, key: key, keyID: registered.keyID, path: "zones/list", body: nil, emptyHash: true)).0 == 200)
        #expect(try await Self.send(f, Self.signed(f, key: key, keyID: registered.keyID, path: "zones/list", body: nil)).0 == 200)
    }

    /// CloudKit JS's `setUpAuth()` with a key sends a signed `users/caller` (1.x: `users/current`) before anything
    /// else and stops on its error: both answer the developer the key acts as, with no name.
    @Test func aKeyIsAnsweredWhoItActsAs() async throws {
        let f = try await APIFixture()
        let key = P256.Signing.PrivateKey()
        let registered = try f.app.store.credentials.addServerKey(container: f.container, environment: .development, publicKeyPEM: key.publicKey.pemRepresentation)
        let (status, caller) = try await Self.send(f, Self.signed(f, key: key, keyID: registered.keyID, path: "users/caller", body: nil))
        #expect(status == 200)
        #expect(caller["userRecordName"]?.string == registered.userRecordName && caller["lookupInfo"]?["userRecordName"]?.string == registered.userRecordName)
        #expect(caller["nameComponents"] == .object([:]))
        let (legacyStatus, current) = try await Self.send(f, Self.signed(f, key: key, keyID: registered.keyID, path: "users/current", body: nil))
        #expect(legacyStatus == 200 && current["userRecordName"]?.string == registered.userRecordName)
        #expect(current["firstName"]?.string == "" && current["lastName"]?.string == "")
        // Still the public database only.
        #expect(try await Self.send(f, Self.signed(f, key: key, keyID: registered.keyID, path: "users/caller", body: nil, db: "private")).0 == 401)
    }

    @Test func badStaleReplayedOrForeignSignaturesAreRefused() async throws {
        let f = try await APIFixture()
        let key = P256.Signing.PrivateKey()
        let id = try f.app.store.credentials.addServerKey(container: f.container, environment: .development, publicKeyPEM: key.publicKey.pemRepresentation).keyID
        let body = #"{"query":{"recordType":"Note"}}"#

        var tampered = Self.signed(f, key: key, keyID: id, path: "records/query", body: body)
        tampered.httpBody = Data(#"{"query":{"recordType":"Secret"}}"#.utf8)
        #expect(try await Self.send(f, tampered).1.code == "AUTHENTICATION_FAILED")
        let wrongKey = Self.signed(f, key: P256.Signing.PrivateKey(), keyID: id, path: "records/query", body: body)
        #expect(try await Self.send(f, wrongKey).0 == 401)
        let stale = Self.signed(f, key: key, keyID: id, path: "records/query", body: body, date: Date().addingTimeInterval(-11 * 60))
        #expect(try await Self.send(f, stale).0 == 401)
        let future = Self.signed(f, key: key, keyID: id, path: "records/query", body: body, date: Date().addingTimeInterval(11 * 60))
        #expect(try await Self.send(f, future).0 == 401)
        let unknown = Self.signed(f, key: key, keyID: String(repeating: "a", count: 64), path: "records/query", body: body)
        #expect(try await Self.send(f, unknown).0 == 401)

        let once = Self.signed(f, key: key, keyID: id, path: "records/query", body: body)
        #expect(try await Self.send(f, once).1.code != "AUTHENTICATION_FAILED")
        let replay = try await Self.send(f, once)
        #expect(replay.0 == 401 && replay.1["reason"]?.string?.contains("already used") == true)

        let privateDB = Self.signed(f, key: key, keyID: id, path: "zones/list", body: nil, db: "private")
        #expect(try await Self.send(f, privateDB).0 == 401)
        // A key may ask who it acts as, nothing of other users: the refusal says the key itself was good.
        for (path, body) in [("users/discover", #"{"lookupInfos":[{"emailAddress":"alice@example.com"}]}"#),
                             ("users/lookup/email", #"{"users":[{"emailAddress":"alice@example.com"}]}"#), ("users/lookup/contacts", nil)] {
            let refusedUsers = try await Self.send(f, Self.signed(f, key: key, keyID: id, path: path, body: body))
            #expect(refusedUsers.0 == 401 && refusedUsers.1.code == "AUTHENTICATION_FAILED", "\(path)")
            #expect(refusedUsers.1["reason"]?.string?.contains("key verified") == true && refusedUsers.1["reason"]?.string?.contains("signed-in user") == true, "\(path)")
        }

        try f.app.store.credentials.revokeServerKey(id: id, container: f.container)
        #expect(try await Self.send(f, Self.signed(f, key: key, keyID: id, path: "records/query", body: body)).0 == 401)
    }

    @Test func keysMustBeP256PublicKeys() throws {
        let store = try ServerStore(dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("stratus-keys-\(UUID())"))
        let c = try ContainerID("iCloud.com.example.Keys")
        try store.createContainer(c)
        for bad in ["", "not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", String(repeating: "x", count: 10_000)] {
            #expect(throws: StratusError.self) { try store.credentials.addServerKey(container: c, environment: .development, publicKeyPEM: bad) }
        }
        let pem = P256.Signing.PrivateKey().publicKey.pemRepresentation
        _ = try store.credentials.addServerKey(container: c, environment: .development, publicKeyPEM: pem)
        #expect(throws: StratusError.self) { try store.credentials.addServerKey(container: c, environment: .development, publicKeyPEM: pem) }
    }
}
