import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The console's Subscriptions page: every user's subscriptions with what they listen for, and deletion.
@Suite struct ConsoleSubscriptionsTests {
    @Test func listsEveryUsersSubscriptionsAndDeletesOne() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Subs")
        try f.app.store.createContainer(container)
        let user = try await offPool { try f.app.store.accounts.createUser(container: container, email: "dana@example.com", password: "a long password") }
        let env = try f.app.store.environment(container, .development)
        try env.subscriptions.saveSubscription("urgent<b>", document: #"{"subscriptionID":"urgent<b>","subscriptionType":"query","query":{"recordType":"Task","filterBy":[{"fieldName":"urgent","comparator":"EQUALS","fieldValue":{"value":1,"type":"INT64"}}]},"firesOn":["create"]}"#,
                                 in: .public, owner: user.userRecordName)
        try env.subscriptions.saveSubscription("all", document: #"{"subscriptionID":"all","subscriptionType":"database"}"#,
                                 in: .private, owner: user.userRecordName)
        let base = "/console/\(container.rawValue)/development"
        let page = try await s.get("\(base)/subscriptions")
        #expect(page.status == 200 && page.html.contains("Task where urgent EQUALS") && page.html.contains("the whole private database"))
        #expect(page.html.contains("dana@example.com") && page.html.contains("urgent&lt;b&gt;") && !page.html.contains("urgent<b>"))
        // Without the CSRF token nothing is deleted; with it the subscription goes, and the audit log says so.
        let form = [("scope", "private"), ("owner", user.userRecordName), ("id", "all")]
        #expect(try await s.post("\(base)/subscriptions/delete", form, csrf: false).status == 403)
        #expect(try env.subscriptions.all(in: .private, owner: user.userRecordName).count == 1)
        #expect(try await s.post("\(base)/subscriptions/delete", form).status == 303)
        #expect(try env.subscriptions.all(in: .private, owner: user.userRecordName).isEmpty)
        #expect(try await s.get("/console/audit").html.contains("delete subscription"))
        let json = try await s.get("\(base)/subscriptions", accept: "application/json")
        #expect(json.html.contains(#""subscriptionID":"urgent<b>""#) || json.html.contains("urgent\\u003cb\\u003e") || json.html.contains("urgent<b>"))
    }
}
