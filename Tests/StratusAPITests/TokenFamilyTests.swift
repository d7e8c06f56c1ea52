import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
@testable import StratusStore
import StratusTestSupport

/// A web auth token rotates at most once, and signing out with any token of a sign-in ends all of them; what the
/// sign-in registered (a device) stays its user's for as long as that sign-in lasts, whichever token is current.
@Suite struct TokenFamilyTests {
    /// A token past half its life, as a client holds one after a quarter of an hour.
    static func halfSpentToken(_ f: APIFixture, _ user: ContainerUser) async throws -> String {
        try await offPool {
            try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: user.userRecordName,
                                                        lifetime: AccountStore.shortSession / 2 - 60_000)
        }
    }

    static func tokenRows(_ f: APIFixture, _ user: ContainerUser) async throws -> Int {
        try await offPool {
            Int(try f.app.store.control.read { s in
                try s.int64("SELECT COUNT(*) FROM web_tokens WHERE user_record_name = ?", [user.userRecordName]) ?? 0
            })
        }
    }

    static func signOut(_ f: APIFixture, _ token: String) async throws -> Int {
        var request = URLRequest(url: URL(string: "\(f.app.url)auth/1/\(f.container.rawValue)/development/signout")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"ckWebAuthToken":"\#(token)"}"#.utf8)
        let (_, response) = try await f.session.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func aTokenRotatesOnceAndSigningOutEndsEveryTokenItRotatedTo() async throws {
        let f = try await APIFixture()
        let carol = ContainerUser(userRecordName: "_" + String(repeating: "c3", count: 16), email: "carol@example.com")
        let original = try await Self.halfSpentToken(f, carol)
        let before = try await Self.tokenRows(f, carol)
        var successors: Set<String> = []
        for _ in 0..<50 {
            let r = try await f.call("users/caller", user: original)
            #expect(r.status == 200)
            if let next = r.headers["x-apple-cloudkit-web-auth-token"] { successors.insert(next) }
        }
        // Fifty requests, one successor, one row.
        #expect(successors.count == 1 && !successors.contains(original))
        #expect(try await Self.tokenRows(f, carol) == before + 1)
        let successor = try #require(successors.first)
        #expect(try await f.call("users/caller", user: successor).status == 200)
        // Signing out with the original ends the successor too.
        #expect(try await Self.signOut(f, original) == 200)
        #expect(try await f.call("users/caller", user: successor).status == 421)
        #expect(try await f.call("users/caller", user: original).status == 421)
        #expect(try await Self.tokenRows(f, carol) == 0)
    }

    @Test func signingOutWithTheSuccessorEndsTheOriginal() async throws {
        let f = try await APIFixture()
        let dan = ContainerUser(userRecordName: "_" + String(repeating: "d4", count: 16), email: "dan@example.com")
        let original = try await Self.halfSpentToken(f, dan)
        let successor = try #require(try await f.call("users/caller", user: original).headers["x-apple-cloudkit-web-auth-token"])
        #expect(try await Self.signOut(f, successor) == 200)
        #expect(try await f.call("users/caller", user: original).status == 421)
    }

    /// Alice's device stays hers once the token she registered it with has expired, while she is still signed in
    /// on it with the token it rotated to; Bob, who learned the device token, is refused.
    @Test func aDeviceStaysItsUsersWhileHerSignInLasts() async throws {
        let f = try await APIFixture()
        let env = try f.app.store.environment(f.container, .development)
        let device = String(repeating: "cd", count: 32)
        let original = try await Self.halfSpentToken(f, f.alice)
        #expect(try await DeviceTakeoverTests.register(f, device, user: original).status == 200)
        let successor = try #require(try await f.call("users/caller", user: original).headers["x-apple-cloudkit-web-auth-token"])
        // The original expires; she goes on with its successor.
        try await offPool {
            try f.app.store.control.write { s in
                try s.execute("UPDATE web_tokens SET expires_at = 1 WHERE token_hash = ?", Secrets.tokenHash(original))
            }
            f.app.store.accounts.webTokenCache.removeAll()
        }
        #expect(try await f.call("users/caller", user: original).status == 421)
        #expect(try await f.call("users/caller", user: successor).status == 200)
        let bobs = try await DeviceTakeoverTests.register(f, device, user: f.bobToken)
        #expect(bobs.status == 403 && bobs.json.code == "ACCESS_DENIED", "\(bobs.text)")
        #expect(try env.apns.apnsDevices().map(\.userRecordName) == [f.alice.userRecordName])
        // Signed out with the successor: the device is unregistered, and may move.
        #expect(try await Self.signOut(f, successor) == 200)
        #expect(try env.apns.apnsDevices().isEmpty)
        #expect(try await DeviceTakeoverTests.register(f, device, user: f.bobToken).status == 200)
    }
}
