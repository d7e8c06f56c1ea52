import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusTestSupport
import Testing
import StratusModel

/// A JSON sign-in that meets a storage failure answers CloudKit's envelope, with no SQL or table name in it and the
/// uuid it answers with quoted in its reason. (The envelope now redacts alone; before, the sign-in redacted first and
/// the log line under the answered uuid held only that first redaction — which this test cannot see: it reads the
/// answer, not the log.)
@Suite struct SignInRedactionTests {
    @Test func aFailedJSONSignInQuotesTheUUIDItAnswersWith() async throws {
        let f = try await APIFixture()
        // The accounts table goes from under the running server, as a damaged database would leave it.
        try DamagedTables.rename(in: f.data.appendingPathComponent("stratus.sqlite")) { $0 == "users" }
        let (status, data) = try await f.authForm("signin", "email=carol%40example.com&password=a%20long%20passphrase")
        #expect(status == 500)
        let body = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let uuid = try #require(body["uuid"] as? String)
        let reason = try #require(body["reason"] as? String)
        #expect(body["serverErrorCode"] as? String == "INTERNAL_ERROR")
        #expect(reason == "internal error; quote \(uuid) to the server's operator")
        #expect(!reason.contains("users") && !reason.contains("SQL"))
    }
}
