import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
@testable import StratusStore
import StratusTestSupport

/// Listeners under a hostile or careless client: revoked and signed-out credentials end open streams and courier
/// polls at once, listeners are capped per user, a client that leaves is noticed at once, courier tokens are
/// credentials (hashed, expiring, bound to their session), and a web auth token works in its own environment only.
@Suite struct HostileListenerTests {
    static func prepare(_ f: APIFixture, _ token: String) async throws {
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#, db: "private", user: token)
        _ = try await f.call("subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#,
                             db: "private", user: token)
    }

    static func write(_ f: APIFixture, _ name: String, user: String) async throws {
        _ = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note"}}]}"#,
                             db: "private", user: user)
    }

    static func stream(_ f: APIFixture, api: String, user: String) throws -> RawClient {
        let c = try RawClient(port: f.app.port, receiveTimeout: 60)
        c.send("GET /database/1/\(f.container.rawValue)/development/notifications/stream?ckAPIToken=\(api)&ckWebAuthToken=\(APIFixture.encode(user)) HTTP/1.1\r\nHost: x\r\n\r\n")
        return c
    }

    /// CloudKit JS's `signOut()`: the session's token in a JSON body.
    static func signOut(_ f: APIFixture, _ token: String) async throws -> Int {
        var req = URLRequest(url: URL(string: "\(f.app.url)auth/1/\(f.container.rawValue)/development/signout")!)
        req.httpMethod = "POST"
        req.httpBody = Data(#"{"ckWebAuthToken":"\#(token)"}"#.utf8)
        return (try await f.session.data(for: req).1 as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// Whether `what` comes true within `seconds` (a ceiling for a loaded machine: it returns as soon as it does).
    static func waitFor(_ what: @Sendable () -> Bool, seconds: Double = 20) async -> Bool {
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < end {
            if what() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return what()
    }

    @Test func aRevokedAPITokenEndsTheOpenStream() async throws {
        let f = try await APIFixture()
        try await Self.prepare(f, f.aliceToken)
        let (token, secret) = try f.app.store.credentials.createAPIToken(container: f.container, environment: .development, name: "app")
        let s = try Self.stream(f, api: secret, user: f.aliceToken)
        _ = await s.read { $0.contains(": stream of notifications") }
        try await Self.write(f, "before", user: f.aliceToken)
        #expect(NotificationStreamTests.events(await s.read(until: NotificationStreamTests.count(1))).count == 1)
        try f.app.store.credentials.revokeAPIToken(id: token.id, container: f.container)
        try await Self.write(f, "after", user: f.aliceToken)
        // The stream ends without sending the notification written after the revocation.
        let rest = String(decoding: await s.all(), as: UTF8.self)
        #expect(!rest.contains("data: "), "nothing is delivered once the token is revoked: \(rest)")
        #expect(await Self.waitFor { f.app.listeners.count == 0 })
    }

    @Test func aStreamEndsWhenItsWebAuthTokenExpires() async throws {
        let f = try await APIFixture()
        try await Self.prepare(f, f.aliceToken)
        // Long enough for the stream to open on a machine busy with the rest of the suite (1.5 s was not, in CI).
        let short = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: f.alice.userRecordName, lifetime: 6_000)
        let s = try Self.stream(f, api: f.devToken, user: short)
        #expect(await s.read { $0.contains(": stream of notifications") }.contains("200"))
        try await Task.sleep(for: .milliseconds(6_100))
        try await Self.write(f, "after", user: f.aliceToken)
        // The stream ended with its session and delivered nothing written after it.
        let rest = String(decoding: await s.all(), as: UTF8.self)
        #expect(!rest.contains("data: "), "\(rest)")
        #expect(await Self.waitFor { f.app.listeners.count == 0 })
    }

    @Test func signingOutEndsStreamsAndCourierTokens() async throws {
        let f = try await APIFixture()
        try await Self.prepare(f, f.aliceToken)
        let web = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: f.alice.userRecordName)
        let created = try await f.call("tokens/create", #"{"apnsEnvironment":"DEVELOPMENT"}"#, user: web, rawDevice: true)
        let courierURL = try #require(created.json["webcourierURL"]?.string)
        let courier = try #require(created.json["apnsToken"]?.string)
        // The courier token is kept as its hash: the data directory holds no usable credential.
        let stored = try f.app.store.environment(f.container, .development).core.read { s, _ in try s.all("SELECT token FROM courier_tokens", []) { $0.string(0) } }
        #expect(stored == [Secrets.tokenHash(courier)])

        let s = try Self.stream(f, api: f.devToken, user: web)
        _ = await s.read { $0.contains(": stream of notifications") }
        // A courier poll waiting for a notification when the session ends answers at once.
        let poll = Task { try await URLSession(configuration: .ephemeral).data(from: URL(string: courierURL)!) }
        try await Task.sleep(for: .milliseconds(200))
        let t0 = ContinuousClock.now
        // CloudKit JS's signOut: the web auth token and what it made end now.
        #expect(try await Self.signOut(f, web) == 200)
        let (_, answer) = try await poll.value
        #expect((answer as? HTTPURLResponse)?.statusCode == 404 && ContinuousClock.now - t0 < .seconds(5))
        try await Self.write(f, "after", user: f.aliceToken)
        let rest = String(decoding: await s.all(), as: UTF8.self)
        #expect(!rest.contains("data: "), "\(rest)")
        #expect(try await f.call("zones/list", db: "private", user: web).status == 421)
        // Signing out again, or with a made-up token, answers the same.
        #expect(try await Self.signOut(f, web) == 200)
        #expect(try await Self.signOut(f, "made-up") == 200)
    }

    @Test func listenersAreCappedPerUserAndALeavingClientIsNoticedAtOnce() async throws {
        let f = try await APIFixture { $0.listeners = NotificationListeners.Limits(perUser: 2, total: 100) }
        let a = try Self.stream(f, api: f.devToken, user: f.aliceToken)
        let b = try Self.stream(f, api: f.devToken, user: f.aliceToken)
        _ = await a.read { $0.contains(": stream of notifications") }
        _ = await b.read { $0.contains(": stream of notifications") }
        let third = await (try Self.stream(f, api: f.devToken, user: f.aliceToken)).response()
        #expect(third?.status == 503 && String(decoding: third?.body ?? Data(), as: UTF8.self).contains("THROTTLED"))
        // Another user is not held back by Alice's listeners.
        let bob = try Self.stream(f, api: f.devToken, user: f.bobToken)
        #expect(await bob.read { $0.contains(": stream of notifications") }.contains("200"))
        #expect(f.app.listeners.count == 3)
        // A client that goes away frees its place at once, without waiting for a keep-alive (15 s).
        a.close()
        bob.close()
        #expect(await Self.waitFor({ f.app.listeners.count == 1 }, seconds: 10))
        let again = try Self.stream(f, api: f.devToken, user: f.aliceToken)
        #expect(await again.read { $0.contains(": stream of notifications") }.contains("200"))
    }

    @Test func aWebAuthTokenWorksInItsOwnEnvironmentOnly() async throws {
        let f = try await APIFixture()
        #expect(try await f.call("zones/list", db: "private", user: f.aliceToken).status == 200)
        let other = try await f.call("zones/list", db: "private", env: "production", user: f.aliceToken)
        #expect(other.status == 421 && other.json.code == "AUTHENTICATION_REQUIRED", "\(other.text)")
        let prod = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .production, userRecordName: f.alice.userRecordName)
        #expect(try await f.call("zones/list", db: "private", env: "production", user: prod).status == 200)
    }

    @Test func aCourierTokenExpiresWithItsSessionAndItsProgressLeavesMemory() async throws {
        let f = try await APIFixture()
        let env = try f.app.store.environment(f.container, .development)
        try env.notifications.createCourierToken("short", user: f.alice.userRecordName, expiresAt: WallClock.nowMillis() + 300)
        #expect(try env.notifications.courierToken("short") != nil)
        try await Task.sleep(for: .milliseconds(400))
        #expect(try env.notifications.courierToken("short") == nil)
        let poll = try await URLSession(configuration: .ephemeral).data(from: URL(string: "\(f.app.url)-/webcourier/\(f.container.rawValue)/development/short")!)
        #expect((poll.1 as? HTTPURLResponse)?.statusCode == 404)
        // Positions answered are kept in memory only until saved.
        try env.notifications.createCourierToken("long", user: f.alice.userRecordName, expiresAt: WallClock.nowMillis() + 60_000)
        try env.notifications.courierDelivered("long", through: 5)
        try env.notifications.saveCourierProgress()
        #expect(env.notifications.courierProgress.withLock { $0.answered.isEmpty && $0.dirty.isEmpty })
        #expect(try env.notifications.courierToken("long")?.deliveredThrough == 5)
    }

    @Test func anIdleListenerIsNotMovedByOtherUsersNotifications() async throws {
        let f = try await APIFixture()
        try await Self.prepare(f, f.bobToken)
        let env = try f.app.store.environment(f.container, .development)
        let (alice, bob) = (f.alice.userRecordName, f.bob.userRecordName)
        let start = try env.notifications.lastNotificationID(for: alice)
        let bobStart = try env.notifications.lastNotificationID(for: bob)
        for i in 0..<5 { try await Self.write(f, "b\(i)", user: f.bobToken) }
        try await offPool { env.notifications.deliverHandedOff() }
        // Each user's notifications have their own order: Bob's five move his, and Alice reads none of them.
        let page = try env.notifications.notificationPage(for: alice, after: start)
        let (aliceLast, bobLast) = (try env.notifications.lastNotificationID(for: alice), try env.notifications.lastNotificationID(for: bob))
        #expect(page.notifications.isEmpty && page.through == start && aliceLast == start)
        let bobs = try env.notifications.notificationPage(for: bob, after: bobStart)
        #expect(bobs.notifications.count == 5 && bobs.through == bobLast && bobs.through > bobStart)
    }
}
