import Crypto
import Foundation
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusServer
import StratusModel
import StratusStore
import StratusTestSupport

/// What a stranger tried against the real server that once stopped it or made it hold bodies it then refused: each
/// is answered with a status, nothing of the body is held, and the server goes on serving.
@Suite struct ProbeRefusalTests {
    static func send(_ f: APIFixture, _ raw: String) async throws -> RawClient.Response? {
        let c = try RawClient(port: f.app.port, receiveTimeout: 60)
        c.send(raw)
        return await c.response()
    }

    static func alive(_ f: APIFixture) async throws -> Bool {
        try await send(f, "GET /-/health HTTP/1.1\r\nHost: x\r\n\r\n")?.status == 200
    }

    /// `Transfer-Encoding: chunked` with a negative size, on every kind of route a stranger reaches: each is a 400 in
    /// its group's format, and the process lives (it used to die with SIGILL).
    @Test func aNegativeChunkSizeStopsNoRoute() async throws {
        let f = try await APIFixture()
        let c = f.container.rawValue
        let paths = ["/", "/console/login", "/console/setup", "/auth/1/\(c)/development/signin", "/share/abc",
                     "/-/admin/faults", "/device/1/\(c)/development/tokens/create", "/no/such/path",
                     "/database/1/\(c)/development/public/records/modify?ckAPIToken=\(f.devToken)&ckWebAuthToken=\(APIFixture.encode(f.aliceToken))"]
        for path in paths {
            for size in ["-1", "-fffffff", " -1 "] {
                let r = try await Self.send(f, "POST \(path) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n\r\n")
                #expect(r?.status == 400 || r?.status == 401 || r?.status == 403, "\(path) \(size.debugDescription) → \(r?.status ?? 0)")
                #expect(try await Self.alive(f), "after \(path) \(size.debugDescription)")
            }
        }
    }

    /// An asset path of 64 fullwidth digits: `Character.isHexDigit` took them and a forced unwrap then trapped.
    @Test func fullwidthDigitsInAnAssetPathAreANotFound() async throws {
        let f = try await APIFixture()
        let hex = String(repeating: "%EF%BC%90", count: 64)
        for path in ["/-/assets/\(f.container.rawValue)/development/\(hex)?e=99999999999999&s=x",
                     "/-/assets/\(f.container.rawValue)/development/\(String(repeating: "g", count: 64))?e=1&s=x",
                     "/-/assets/\(f.container.rawValue)/development/\(String(repeating: "0", count: 63))?e=1&s=x"] {
            let r = try await Self.send(f, "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(r?.status == 404, "\(path.prefix(80)) → \(r?.status ?? 0)")
            #expect(try await Self.alive(f))
        }
    }

    /// Anonymous admin requests announcing 64 MB are refused on their head, whether the endpoints are on or off; the
    /// snapshot route reads no body worth holding either.
    @Test(arguments: [true, false])
    func adminBodiesAreNotReadBeforeTheBearerIsChecked(_ on: Bool) async throws {
        let f = try await APIFixture { if on { $0.adminToken = "admin-secret-for-the-test" } }
        let c = f.container.rawValue
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    try await Self.send(f, "POST /-/admin/containers HTTP/1.1\r\nHost: x\r\nContent-Length: 64000000\r\n\r\n")?.status ?? 0
                }
            }
            for try await status in group { #expect(status == (on ? 401 : 403)) }
        }
        let snapshot = try await Self.send(f, "POST /-/admin/containers/\(c)/development/snapshot HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
        #expect(snapshot?.status == 413 || snapshot?.status == (on ? 401 : 403))
        #expect(f.app.bufferedBodyBytes == 0)
        #expect(try await Self.alive(f))
    }

    /// A server-to-server request with a real key ID but no signature or date is refused before its body is read.
    @Test func aKeyIDAloneDoesNotAdmitABody() async throws {
        let f = try await APIFixture()
        let key = P256.Signing.PrivateKey()
        let keyID = try await offPool { try f.app.store.credentials.addServerKey(container: f.container, environment: .development, publicKeyPEM: key.publicKey.pemRepresentation).keyID }
        let path = "/database/1/\(f.container.rawValue)/development/public/records/modify"
        for extra in ["", "X-Apple-CloudKit-Request-ISO8601Date: 2016-01-25T22:15:43Z\r\nX-Apple-CloudKit-Request-SignatureV1: MEUCIQ==\r\n",
                      "X-Apple-CloudKit-Request-SignatureV1: MEUCIQ==\r\n"] {
            let r = try await Self.send(f, "POST \(path) HTTP/1.1\r\nHost: x\r\nX-Apple-CloudKit-Request-KeyID: \(keyID)\r\n\(extra)Content-Length: 16000000\r\n\r\n")
            #expect(r?.status == 401, "\(extra.debugDescription)")
        }
        #expect(f.app.bufferedBodyBytes == 0)
    }

    /// The public API token alone cannot fill the server's body budget: past its share, its next large body is told to
    /// come back, while a signed-in user's body is still read.
    @Test func anAPITokenHoldsOnlyItsShareOfTheBodyBudget() async throws {
        let f = try await APIFixture { $0.http.maxBufferedBodyBytes = 4 << 20 }
        let path = "/database/1/\(f.container.rawValue)/development/public/records/modify"
        var slow: [RawClient] = []
        // One MB bodies, sent slowly: the token's share (a quarter: 1 MB) holds one.
        let first = try RawClient(port: f.app.port, receiveTimeout: 60)
        first.send("POST \(path)?ckAPIToken=\(f.devToken) HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n{")
        slow.append(first)
        for _ in 0..<3000 where f.app.bufferedBodyBytes == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(f.app.bufferedBodyBytes == 1_000_000)
        let second = try await Self.send(f, "POST \(path)?ckAPIToken=\(f.devToken) HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
        #expect(second?.status == 503)
        let body = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"t":{"value":"\#(String(repeating: "x", count: 200_000))"}}}}]}"#
        let alice = try await f.call("records/modify", body, user: f.aliceToken)
        #expect(alice.status == 200, "\(alice.text.prefix(200))")
        for c in slow { c.close() }
    }
}

/// The admin token on Production: faults, snapshots and restores there need `serve --allow-production-admin`, and
/// every admin endpoint action is audited.
@Suite struct ProductionAdminEndpointTests {
    static func admin(_ f: APIFixture, _ method: String, _ path: String, _ body: String = "") async throws -> RawClient.Response? {
        try await ProbeRefusalTests.send(f, "\(method) \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer admin-secret-for-the-test\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    @Test(arguments: [false, true]) func productionNeedsTheOptIn(_ allowed: Bool) async throws {
        let f = try await APIFixture { $0.adminToken = "admin-secret-for-the-test"; $0.allowProductionAdmin = allowed }
        let c = f.container.rawValue
        let fault = #"{"container":"\#(c)","environment":"production","operation":"records/modify","error":"INTERNAL_ERROR","probability":1}"#
        let added = try await Self.admin(f, "POST", "/-/admin/faults", fault)
        #expect(added?.status == (allowed ? 201 : 403))
        let reason = String(decoding: added?.body ?? Data(), as: UTF8.self)
        if !allowed { #expect(reason.contains("--allow-production-admin"), "\(reason)") }
        let snapshot = try await Self.admin(f, "POST", "/-/admin/containers/\(c)/production/snapshot")
        #expect(snapshot?.status == (allowed ? 200 : 403))
        let restore = try await Self.admin(f, "POST", "/-/admin/containers/\(c)/production/restore", #"{"snapshot":"0123456789abcdef01234567"}"#)
        #expect(restore?.status == (allowed ? 404 : 403))
        // Development is the admin token's own, with or without the flag.
        #expect(try await Self.admin(f, "POST", "/-/admin/containers/\(c)/development/snapshot")?.status == 200)
        let log = try await offPool { try f.app.store.admins.auditLog() }
        let actions = log.filter { $0.admin.hasPrefix("admin endpoint") }.map { "\($0.action) \($0.environment ?? "-")" }
        #expect(actions.contains("snapshot development"), "\(actions)")
        #expect(actions.contains("add fault production") == allowed && actions.contains("snapshot production") == allowed, "\(actions)")
        if allowed { _ = try await Self.admin(f, "DELETE", "/-/admin/faults?container=\(c)") }
    }
}
