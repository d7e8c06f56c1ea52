import Foundation
import Testing
@testable import StratusAPI
import StratusModel
@testable import StratusStore
import StratusTestSupport

/// Rows a request makes are bounded per user: a loop of `tokens/create` or of sign-ins keeps a fixed number of rows,
/// the newest working and the oldest ended.
@Suite struct RowBudgetTests {
    @Test func courierTokensAreKeptPerUserUpToTheirCap() async throws {
        let f = try await APIFixture()
        let cap = NotificationStore.maximumCourierTokensPerUser
        var tokens: [String] = []
        for _ in 0..<(cap + 40) {
            let r = try await f.call("tokens/create", #"{"apnsEnvironment":"DEVELOPMENT"}"#, user: f.aliceToken, rawDevice: true)
            tokens.append(try #require(r.json["apnsToken"]?.string, "\(r.text)"))
        }
        let rows = try await offPool {
            try f.app.store.environment(f.container, .development).notifications.read { s, _ in
                try s.int64(#"SELECT COUNT(*) FROM courier_tokens WHERE "user" = ?"#, [f.alice.userRecordName]) ?? 0
            }
        }
        #expect(rows == Int64(cap))
        let env = try f.app.store.environment(f.container, .development)
        #expect(try env.notifications.courierToken(tokens.last!) != nil)
        #expect(try env.notifications.courierToken(tokens.first!) == nil)
        // Another user's are their own.
        let bobs = try await f.call("tokens/create", #"{"apnsEnvironment":"DEVELOPMENT"}"#, user: f.bobToken, rawDevice: true)
        #expect(bobs.status == 200)
    }

    @Test func webAuthTokensAreKeptPerUserUpToTheirCap() async throws {
        let f = try await APIFixture()
        let user = "_" + String(repeating: "e5", count: 16)
        let cap = AccountStore.maximumWebTokensPerUser
        let (first, last) = try await offPool { () -> (String, String) in
            var made: [String] = []
            for _ in 0..<(cap + 10) {
                made.append(try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: user))
            }
            return (made.first!, made.last!)
        }
        let rows = try await offPool {
            try f.app.store.control.read { s in try s.int64("SELECT COUNT(*) FROM web_tokens WHERE user_record_name = ?", [user]) ?? 0 }
        }
        #expect(rows == Int64(cap))
        #expect(try f.app.store.accounts.authenticateWebAuthToken(last, container: f.container, environment: .development) != nil)
        #expect(try f.app.store.accounts.authenticateWebAuthToken(first, container: f.container, environment: .development) == nil)
    }
}
