import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The console's Notifications page (the log, and a test send that the user's courier then delivers) and its
/// Webhooks page (add with the secret shown once, disable, re-enable, remove; all audited, all CSRF-guarded).
@Suite struct ConsoleNotificationsTests {
    @Test func anAdminSignsAUserOutEverywhere() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Notes")
        try f.app.store.createContainer(container)
        let user = try await offPool { try f.app.store.accounts.createUser(container: container, email: "erin@example.com", password: "a long password") }
        let dev = try f.app.store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: user.userRecordName)
        let prod = try f.app.store.accounts.createWebAuthToken(container: container, environment: .production, userRecordName: user.userRecordName)
        try f.app.store.environment(container, .development).notifications.createCourierToken("tok", user: user.userRecordName, expiresAt: WallClock.nowMillis() + 60_000)
        let base = "/console/\(container.rawValue)/development"
        let users = try await s.get(base + "/users")
        #expect(users.html.contains("Sign out everywhere"))
        let action = "\(base)/users/\(user.userRecordName)/signout"
        #expect(try await s.post(action, csrf: false).status == 403, "CSRF-guarded")
        #expect(try f.app.store.accounts.authenticateWebAuthToken(dev, container: container, environment: .development) != nil)
        let done = try await s.post(action)
        let shown = try await s.get(try #require(done.headers["location"]))
        #expect(done.status == 303 && shown.html.contains("Signed erin@example.com out everywhere: 2 sessions ended."))
        #expect(try f.app.store.accounts.authenticateWebAuthToken(dev, container: container, environment: .development) == nil)
        #expect(try f.app.store.accounts.authenticateWebAuthToken(prod, container: container, environment: .production) == nil)
        #expect(try f.app.store.environment(container, .development).notifications.courierToken("tok") == nil)
        #expect(try await s.get("/console/audit").html.contains("sign user out everywhere"))
        #expect(try await s.post("\(base)/users/_nobody/signout").status == 404)
    }

    @Test func anAdminDeletesAUsersDataAndTheirAppIsToldTheZoneWasPurged() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Notes")
        try f.app.store.createContainer(container)
        let user = try await offPool { try f.app.store.accounts.createUser(container: container, email: "erin@example.com", password: "a long password") }
        let env = try f.app.store.environment(container, .development)
        let mine = DatabaseID.privateDatabase(of: user.userRecordName)
        let zone = ZoneID(zoneName: "Notes", ownerRecordName: user.userRecordName)
        _ = try env.zones.createZone(zone, in: mine)
        let actor = RequestActor(userRecordName: user.userRecordName)
        _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "n1", recordType: "Note", zoneID: zone, fields: ["t": .string("x")]))],
                           in: mine, zoneID: zone, actor: actor)
        let before = try env.zones.databaseChanges(in: mine, since: nil).syncToken
        let base = "/console/\(container.rawValue)/development"
        let users = try await s.get(base + "/users").html
        #expect(users.contains("Delete this user&#39;s data") || users.contains("Delete this user's data"))
        #expect(!(try await s.get("/console/\(container.rawValue)/production/users").html.contains("Delete this user")), "Development only")
        let action = "\(base)/users/\(user.userRecordName)/purge"
        #expect(try await s.post(action, csrf: false).status == 403, "CSRF-guarded")
        let done = try await s.post(action)
        let shown = try await s.get(try #require(done.headers["location"]))
        #expect(done.status == 303 && shown.html.contains("Deleted erin@example.com"))
        let after = try env.zones.databaseChanges(in: mine, since: before)
        #expect(after.deletedZones.map(\.zoneName) == ["Notes"] && after.deletionReasons == [.purged])
        do {
            _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "n2", recordType: "Note", zoneID: zone))], in: mine, zoneID: zone, actor: actor)
            Issue.record("a write into a purged zone succeeded")
        } catch {
            #expect(error.code == .userDeletedZone)
        }
        // The app makes the zone again, as CloudKit apps do after USER_DELETED_ZONE, and writes go through.
        try env.zones.createZone(zone, in: mine)
        _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "n3", recordType: "Note", zoneID: zone))], in: mine, zoneID: zone, actor: actor)
        let audit = try await s.get("/console/audit").html
        #expect(audit.contains("delete user&#39;s data") || audit.contains("delete user's data"))
    }

    @Test func theLogShowsWhatWasSentAndATestReachesTheUsersCourier() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Notes")
        try f.app.store.createContainer(container)
        // Password hashing (210,000 PBKDF2 rounds) off Swift's few cooperative threads, which the servers need.
        let user = try await offPool { try f.app.store.accounts.createUser(container: container, email: "erin@example.com", password: "a long password") }
        let env = try f.app.store.environment(container, .development)
        try env.subscriptions.saveSubscription("all", document: #"{"subscriptionID":"all","subscriptionType":"database"}"#,
                                 in: .private, owner: user.userRecordName)
        try env.notifications.createCourierToken("tok-erin", user: user.userRecordName, expiresAt: WallClock.nowMillis() + 60_000)
        _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "note<1>", recordType: "Note"))], in: .privateDatabase(of: user.userRecordName),
                           actor: RequestActor(userRecordName: user.userRecordName))
        // Fan-out runs after the commit, on its own thread: wait for it as a user would wait for the push.
        try await offPool { env.notifications.deliverHandedOff() }
        let base = "/console/\(container.rawValue)/development"
        let page = try await s.get("\(base)/notifications")
        #expect(page.status == 200 && page.html.contains("erin@example.com") && page.html.contains("note&lt;1&gt;") && page.html.contains("pending (web courier)"))

        // A test notification: refused without CSRF or for a stranger; sent otherwise, and the courier delivers it.
        #expect(try await s.post("\(base)/notifications/test", [("user", user.userRecordName), ("message", "Hello <Erin>")], csrf: false).status == 403)
        #expect(try await s.post("\(base)/notifications/test", [("user", "_nobody"), ("message", "Hi")]).status == 400)
        let sent = try await s.post("\(base)/notifications/test", [("user", user.userRecordName), ("message", "Hello <Erin>")])
        #expect(sent.status == 200 && sent.html.contains("Sent a test notification to erin@example.com"))
        let first = try await f.request("/-/webcourier/\(container.rawValue)/development/tok-erin")
        let second = try await f.request("/-/webcourier/\(container.rawValue)/development/tok-erin")
        #expect(first.html.contains(#""met":{"dbs":2,"sid":"all"}"#), "the database subscription first: \(first.html)")
        let test = try #require(try JSONSerialization.jsonObject(with: Data(second.html.utf8)) as? [String: Any])
        #expect(((test["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == "Hello <Erin>")
        let after = try await s.get("\(base)/notifications")
        #expect(after.html.contains("delivered (web courier)") && !after.html.contains("pending (web courier)"))
        #expect(try await s.get("/console/audit").html.contains("send test notification"))
    }

    @Test func webhooksAreAddedWithTheirSecretOnceAndCanBeDisabledReEnabledAndRemoved() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Hooks")
        try f.app.store.createContainer(container)
        let env = try f.app.store.environment(container, .development)
        let base = "/console/\(container.rawValue)/development"
        #expect(try await s.post("\(base)/webhooks", [("url", "https://backend.example.com/hook"), ("recordTypes", "Order")], csrf: false).status == 403)
        for bad in ["ftp://x.example/hook", "https://user:pw@x.example/hook", "javascript:alert(1)"] {
            let refused = try await s.post("\(base)/webhooks", [("url", bad), ("recordTypes", "")])
            #expect(refused.status == 400, "\(bad)")
        }
        #expect(try env.webhooks.all().isEmpty)
        let added = try await s.post("\(base)/webhooks", [("url", "https://backend.example.com/hook"), ("recordTypes", "Order, Invoice")])
        let hook = try #require(try env.webhooks.all().first)
        #expect(added.status == 200 && hook.recordTypes == ["Order", "Invoice"])
        let secret = try #require(added.html.range(of: #"value="[0-9a-f]{64}""#, options: .regularExpression).map { String(added.html[$0].dropFirst(7).dropLast()) })
        #expect(!(try await s.get("\(base)/webhooks")).html.contains(secret), "the secret is shown once")
        #expect(try await s.post("\(base)/webhooks/\(hook.id)/disable", []).status == 303)
        #expect(try env.webhooks.all().first?.enabled == false)
        #expect(try await s.get("\(base)/webhooks").html.contains("Re-enable"))
        #expect(try await s.post("\(base)/webhooks/\(hook.id)/enable", []).status == 303)
        #expect(try env.webhooks.all().first?.enabled == true)
        #expect(try await s.post("\(base)/webhooks/\(hook.id)/remove", []).status == 303)
        #expect(try env.webhooks.all().isEmpty)
        #expect(try await s.post("\(base)/webhooks/999/remove", []).status == 404)
        let audit = try await s.get("/console/audit").html
        #expect(audit.contains("add webhook") && audit.contains("disable webhook") && audit.contains("enable webhook") && audit.contains("remove webhook"))
    }
}
