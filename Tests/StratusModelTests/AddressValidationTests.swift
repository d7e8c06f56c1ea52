import Testing
import StratusModel

/// Email addresses and webhook URLs are checked against what mail systems and URLs are, not only for an `@` or a
/// scheme: markup, quotes and header characters never get in.
@Suite struct AddressValidationTests {
    @Test(arguments: ["alice@example.com", "a.b+tag@sub.example.co.uk", "x@localhost", "test-user@iCloud.com.example.App",
                      "o'brien@example.ie", "ünïcode@exämple.de", "abc123xyz@privaterelay.appleid.com"])
    func addressesPeopleHaveAreTaken(_ a: String) { #expect(EmailAddress.isValid(a)) }

    @Test(arguments: ["", "@example.com", "alice@", "alice", "a@b@c", "\"><script>@example.com", "alice@exa mple.com",
                      "alice@example..com", ".alice@example.com", "alice.@example.com", "al..ice@example.com", "alice@-example.com",
                      "alice@example.com\r\nBcc: x@y", "<alice@example.com>", "alice@[127.0.0.1]", "a(b)@example.com",
                      String(repeating: "a", count: 65) + "@example.com", "a@" + String(repeating: "b", count: 250) + ".com"])
    func anythingElseIsNot(_ a: String) { #expect(!EmailAddress.isValid(a), "\(a)") }

    @Test(arguments: ["https://hooks.example.com/stratus", "http://127.0.0.1:8089/hook?x=1&y=%20z", "https://[::1]:9000/", "https://a-b.example/p#f",
                      "http://hooks.internal_host:80/x"])
    func webhookURLsAreTaken(_ u: String) throws { try Webhook.validate(url: u) }

    @Test(arguments: ["https://example.com/\"'><script>", "https://example.com/a b", "javascript:alert(1)", "https://user:pw@example.com/",
                      "https:///path", "https://example.com:99999/", "https://exa<mple.com/", "https://example.com/%zz", "https://example.com/{x}",
                      "https://-bad.example.com/", "https://example.com:/", "https://[::1/"])
    func badWebhookURLsAreRefused(_ u: String) {
        #expect(throws: StratusError.self, "\(u)") { try Webhook.validate(url: u) }
    }
}
