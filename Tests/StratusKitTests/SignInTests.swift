import Foundation
import StratusKit
import Testing

@Suite(.serialized) struct KitSignInTests {
    @Test func aCommandLineToolSignsUpSignsInAndWorksAsThatUser() async throws {
        let f = try await KitFixture()
        let config = f.configuration(.none)
        try await CKContainer.signUp(identifier: f.container.rawValue, configuration: config, email: "carol@example.com",
                                     password: "a long passphrase", firstName: "Carol")
        // The same answer for an address that already has an account.
        try await CKContainer.signUp(identifier: f.container.rawValue, configuration: config, email: "carol@example.com", password: "other one here")

        do {
            _ = try await CKContainer.signIn(identifier: f.container.rawValue, configuration: config, email: "carol@example.com", password: "wrong")
            Issue.record("a wrong password signed in")
        } catch let e as CKError {
            #expect(e.code == .notAuthenticated)
        }
        let carol = try await CKContainer.signIn(identifier: f.container.rawValue, configuration: config, email: "carol@example.com",
                                                 password: "a long passphrase")
        #expect(carol.webAuthToken != nil)
        #expect(try await carol.accountStatus() == .available)
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "mine"))
        note["title"] = "Carol's"
        _ = try await carol.privateCloudDatabase.save(note)
        // Private: Alice does not see it.
        do {
            _ = try await f.aliceContainer().privateCloudDatabase.record(for: note.recordID)
            Issue.record("another user's private record was visible")
        } catch let e as CKError {
            #expect(e.code == .unknownItem)
        }

        let tester = try await CKContainer.signInAsTestUser(identifier: f.container.rawValue, configuration: config)
        #expect(try await tester.accountStatus() == .available)

        // A JSON sign-in needs a live API token of the environment.
        var noToken = config
        noToken.apiToken = "0000"
        do {
            _ = try await CKContainer.signIn(identifier: f.container.rawValue, configuration: noToken, email: "carol@example.com", password: "a long passphrase")
            Issue.record("signed in without an API token")
        } catch let e as CKError {
            #expect(e.code == .notAuthenticated)
        }
    }

    @Test func theDefaultContainerReadsTheStratusVariables() throws {
        // CKContainer.default() reads the process's variables; the same reading, given them explicitly.
        let c = CKContainer.Configuration.fromEnvironment([
            "STRATUS_URL": "http://127.0.0.1:1234", "STRATUS_ENVIRONMENT": "production", "STRATUS_API_TOKEN": "abc", "STRATUS_WEB_AUTH_TOKEN": "w",
        ])
        #expect(c.problem == nil)
        #expect(c.serverURL.absoluteString == "http://127.0.0.1:1234")
        #expect(c.environment == .production)
        guard case .webAuthToken("w") = c.credentials else { Issue.record("no web token"); return }
        let bad = CKContainer.Configuration.fromEnvironment(["STRATUS_URL": "http://x", "STRATUS_ENVIRONMENT": "staging", "STRATUS_KEY_ID": "k",
                                                             "STRATUS_PRIVATE_KEY_FILE": "/nonexistent"])
        #expect(bad.problem?.contains("STRATUS_ENVIRONMENT") == true)
        #expect(bad.problem?.contains("STRATUS_PRIVATE_KEY_FILE") == true)
    }
}
