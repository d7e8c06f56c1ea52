import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore
import StratusTestSupport

/// A device token is not proof of holding the device: another user who registers Alice's token does not take her
/// device (and her notifications) while she is signed in on it. Signing out unregisters the device; then it may move.
@Suite struct DeviceTakeoverTests {
    static func register(_ f: APIFixture, _ token: String, user: String) async throws -> APIFixture.Reply {
        try await f.call("tokens/register", #"{"apnsEnvironment":"DEVELOPMENT","apnsToken":"\#(token)"}"#, user: user, rawDevice: true)
    }

    @Test func anotherUserCannotTakeASignedInUsersDevice() async throws {
        let f = try await APIFixture()
        let env = try f.app.store.environment(f.container, .development)
        let device = String(repeating: "ab", count: 32)
        #expect(try await Self.register(f, device, user: f.aliceToken).status == 200)
        // Bob, who learned the token, is refused; the device stays Alice's.
        let bobs = try await Self.register(f, device, user: f.bobToken)
        #expect(bobs.status == 403 && bobs.json.code == "ACCESS_DENIED", "\(bobs.text)")
        #expect(try env.apns.apnsDevices().map(\.userRecordName) == [f.alice.userRecordName])
        // Alice signs out on the device: it is unregistered, and then it may be registered by whoever signs in there.
        var signout = URLRequest(url: URL(string: "\(f.app.url)auth/1/\(f.container.rawValue)/development/signout")!)
        signout.httpMethod = "POST"
        signout.httpBody = Data(#"{"ckWebAuthToken":"\#(f.aliceToken)"}"#.utf8)
        let (_, response) = try await f.session.data(for: signout)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try env.apns.apnsDevices().isEmpty)
        #expect(try await Self.register(f, device, user: f.bobToken).status == 200)
        #expect(try env.apns.apnsDevices().map(\.userRecordName) == [f.bob.userRecordName])
    }
}
