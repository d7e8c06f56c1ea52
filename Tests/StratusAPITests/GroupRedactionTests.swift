import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// A storage failure's own text (SQL, table names, file paths) reaches no client, whichever route group answers:
/// each group's one error owner redacts it, logging the detail under a uuid the answer quotes. The failures are
/// real: the tables a request needs are renamed under the running server, as a damaged database would leave them.
/// (The console's pages and the sign-in page have tests of their own: ConsoleRedactionTests, SignInRedactionTests.)
@Suite struct GroupRedactionTests {
    static let leaks = DamagedTables.leaks + [".sqlite"]
    static func rename(in file: URL, _ names: (String) -> Bool) throws { try DamagedTables.rename(in: file, names) }

    static func expectNoLeak(_ text: String, _ face: String) {
        #expect(text.contains("quote"), "\(face) quotes the uuid the log has: \(text.prefix(300))")
        for leak in leaks { #expect(!text.contains(leak), "\(face) shows \(leak): \(text.prefix(300))") }
    }

    @Test func everyGroupAnswersAStorageFailureWithoutItsDetail() async throws {
        let f = try await APIFixture(configure: { $0.adminToken = "an-admin-token-of-some-length" })
        // A courier token made before the damage, for the handout group's poll.
        let web = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: f.alice.userRecordName)
        let created = try await f.call("tokens/create", #"{"apnsEnvironment":"DEVELOPMENT"}"#, user: web, rawDevice: true)
        let courierURL = try #require(created.json["webcourierURL"]?.string)
        let environmentFile = f.data.appendingPathComponent("containers").appendingPathComponent(f.container.rawValue).appendingPathComponent("development.sqlite")
        try Self.rename(in: environmentFile) { $0 != "meta" }
        try Self.rename(in: f.data.appendingPathComponent("stratus.sqlite")) { $0 == "faults" }

        // cloudkit: CloudKit's envelope.
        let zones = try await f.call("zones/list", db: "private", user: f.aliceToken)
        #expect(zones.status == 500 && zones.json.code == "INTERNAL_ERROR", "\(zones.text.prefix(300))")
        Self.expectNoLeak(zones.text, "zones/list")

        // handout: the web courier, CloudKit's envelope too.
        let (pollData, pollResponse) = try await f.session.data(from: URL(string: courierURL)!)
        #expect((pollResponse as? HTTPURLResponse)?.statusCode == 500)
        Self.expectNoLeak(String(decoding: pollData, as: UTF8.self), "the web courier")

        // share: an HTML page (a share that cannot be read is one not shared with you).
        let (shareData, _) = try await f.session.data(from: URL(string: "\(f.app.url)share/AAAAAAAAAAAAAAAAAAAAAAAA")!)
        let sharePage = String(decoding: shareData, as: UTF8.self)
        for leak in Self.leaks { #expect(!sharePage.contains(leak), "the share page shows \(leak)") }

        // admin: {"reason"}.
        var admin = URLRequest(url: URL(string: "\(f.app.url)-/admin/faults")!)
        admin.setValue("Bearer an-admin-token-of-some-length", forHTTPHeaderField: "Authorization")
        let (adminData, adminResponse) = try await f.session.data(for: admin)
        #expect((adminResponse as? HTTPURLResponse)?.statusCode == 500)
        Self.expectNoLeak(String(decoding: adminData, as: UTF8.self), "the admin API")
    }
}
