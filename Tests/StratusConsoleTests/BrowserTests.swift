import Foundation
import Testing
import StratusHTTP
import StratusJSON
import StratusModel
import StratusServer
import StratusStore
import StratusTestSupport

/// The console's main flows in a real browser: headless Chromium driven over WebDriver by
/// `Tests/e2e/browser_flows.py`, which saves a screenshot per step under `test-artifacts/screenshots/`.
/// `.ci/run` installs Chromium and chromedriver and sets STRATUS_REQUIRE_BROWSER=1; elsewhere the test is
/// skipped when they are missing.
@Suite struct BrowserTests {
    static let driver = ProcessInfo.processInfo.environment["CHROMEDRIVER"] ?? "/usr/bin/chromedriver"
    static let available = Prerequisites.available(FileManager.default.isExecutableFile(atPath: driver) && Prerequisites.pythonModules(["requests"]))

    @Test(.enabled(if: available, "chromium, chromium-driver (apt-get install chromium chromium-driver) or python3's requests are not installed"))
    func mainFlowsInHeadlessChromium() async throws {
        let f = try await ConsoleFixture()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("Tests/e2e/browser_flows.py")
        let shots = root.appendingPathComponent("test-artifacts/screenshots")
        let setup = try #require(f.app.console.setupPath)
        // A share for the acceptance flow: Olga shares her trip with Mel, who opens its URL in the browser.
        let store = f.app.store
        let sharePath = try await offPool { () -> String in
            let container = try ContainerID("iCloud.com.example.Shares")
            try store.createContainer(container)
            let olga = try store.accounts.createUser(container: container, email: "olga@example.com", password: "a long password", firstName: "Olga")
            let mel = try store.accounts.createUser(container: container, email: "mel@example.com", password: "a long password")
            let env = try store.environment(container, .development)
            let db = DatabaseID.privateDatabase(of: olga.userRecordName)
            try env.zones.createZone(ZoneID(zoneName: "Trips"), in: db)
            var share = RecordOperation(.create, StoredRecord(recordName: "trip-share", recordType: Share.recordType))
            share.share = ShareRequest(forRecord: "lisbon", participants: [ShareRequest.Invitee(lookup: .emailAddress("mel@example.com"), permission: .readWrite)])
            let results = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "lisbon", recordType: "Trip")), share], in: db,
                                         zoneID: ZoneID(zoneName: "Trips"), actor: RequestActor(userRecordName: olga.userRecordName), users: { _ in mel })
            guard case .savedShare(let saved) = results[1] else { throw StratusError(.internalError, "no share: \(results)") }
            return "/share/\(saved.shortGUID)"
        }
        let output = try await Self.run(script, [
            "STRATUS_URL": f.app.url, "STRATUS_SETUP": setup, "STRATUS_SCREENSHOTS": shots.path, "STRATUS_SHARE_PATH": sharePath,
            "STRATUS_SHARE_EMAIL": "mel@example.com", "STRATUS_SHARE_PASSWORD": "a long password",
        ])
        #expect(output.0 == 0 && output.1.contains("browser flows: passed"), "\(output.1)")
        #expect(FileManager.default.fileExists(atPath: shots.appendingPathComponent("10-reset.png").path))
        #expect(FileManager.default.fileExists(atPath: shots.appendingPathComponent("12-share-accepted.png").path))
        let mel = try #require(try store.accounts.user(container: ContainerID("iCloud.com.example.Shares"), email: "mel@example.com"))
        #expect(try store.environment(ContainerID("iCloud.com.example.Shares"), .development).zones.all(in: .sharedDatabase(of: mel.userRecordName)).map(\.zoneID.zoneName) == ["Trips"])
    }

    static let axeAvailable = Prerequisites.available(FileManager.default.isExecutableFile(atPath: driver) && Prerequisites.pythonModules(["requests", "axe_selenium_python"]))

    /// Every console page of a fresh `serve --demo`, in the light and the dark scheme: axe-core finds no WCAG 2 A/AA
    /// violation and nothing serious or critical, each page shows the demo's content and answers in under 300 ms,
    /// with a screenshot per page and scheme (`Tests/e2e/console_walk.py`); also the narrow-window menu, the keyboard
    /// shortcuts and the admin's colour scheme switch.
    @Test(.enabled(if: axeAvailable, "chromium, chromium-driver or python3's requests and axe-selenium-python (pip install axe-selenium-python) are not installed"))
    func everyDemoPageIsAccessibleInBothColourSchemes() async throws {
        let f = try await ConsoleFixture(configure: { $0.demo = true })
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let setup = try #require(f.app.console.setupPath)
        let alice = try #require(try f.app.store.accounts.user(container: DemoData.container, email: "alice@example.com"))
        let output = try await Self.run(root.appendingPathComponent("Tests/e2e/console_walk.py"), [
            "STRATUS_URL": f.app.url, "STRATUS_SETUP": setup, "STRATUS_SCREENSHOTS": root.appendingPathComponent("test-artifacts/screenshots").path,
            "STRATUS_DEMO_ALICE": alice.userRecordName,
        ])
        #expect(output.0 == 0 && output.1.contains("console walk: passed"), "\(output.1)")
        print(output.1.split(separator: "\n").filter { $0.hasPrefix("slowest") || $0.hasPrefix("console walk") }.joined(separator: "\n"))
    }

    /// CloudKit JS's sign-in window (`Tests/e2e/signin_window.py`): an app page on another origin, listening as
    /// CloudKit JS does and checking the sender's origin, opens the `redirectURL` it was answered; the user signs in
    /// and the app hears `{ckSession, ckWebAuthToken}`, a session that is that user's; cancelled, it hears
    /// `{errorMessage}`; an opener no API token lists is refused.
    @Test(.enabled(if: available, "chromium, chromium-driver (apt-get install chromium chromium-driver) or python3's requests are not installed"))
    func cloudKitJSSignsInThroughTheSignInWindow() async throws {
        let f = try await ConsoleFixture()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let appPort = try FreePort.belowEphemeralRange()
        var untrustedPort = try FreePort.belowEphemeralRange()
        while untrustedPort == appPort { untrustedPort = try FreePort.belowEphemeralRange() }
        let store = f.app.store
        let container = try ContainerID("iCloud.com.example.WebApp")
        let (token, user) = try await offPool { () -> (String, ContainerUser) in
            try store.createContainer(container)
            let token = try store.credentials.createAPIToken(container: container, environment: .development, name: "web app", allowedOrigins: ["http://127.0.0.1:\(appPort)"]).secret
            return (token, try store.accounts.createUser(container: container, email: "wendy@example.com", password: "a long password"))
        }
        let output = try await Self.run(root.appendingPathComponent("Tests/e2e/signin_window.py"), [
            "STRATUS_URL": f.app.url, "STRATUS_CONTAINER": container.rawValue, "STRATUS_API_TOKEN": token, "STRATUS_APP_PORT": "\(appPort)",
            "STRATUS_USER_EMAIL": "wendy@example.com", "STRATUS_USER_PASSWORD": "a long password", "STRATUS_USER_RECORD_NAME": user.userRecordName,
            "STRATUS_UNTRUSTED_PORT": "\(untrustedPort)", "STRATUS_SCREENSHOTS": root.appendingPathComponent("test-artifacts/screenshots").path,
        ])
        #expect(output.0 == 0 && output.1.contains("sign-in window: passed"), "\(output.1)")
    }

    /// Signing in with a provider through the sign-in page's button (`Tests/e2e/provider_signin.py`), against two
    /// stand-in providers on another site (localhost): one answering by redirect, to the app's callback URL; one by
    /// a cross-site form POST, as Apple does, from CloudKit JS's sign-in window. Both sign the same kind of user in:
    /// the provider's subject, the same user every time.
    @Test(.enabled(if: available, "chromium, chromium-driver (apt-get install chromium chromium-driver) or python3's requests are not installed"))
    func providersSignInThroughTheSignInPageInChromium() async throws {
        let f = try await ConsoleFixture()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let appPort = try FreePort.belowEphemeralRange()
        let redirecting = try await StandInOpenIDProvider(host: "localhost"), posting = try await StandInOpenIDProvider(host: "localhost")
        defer { Task { await redirecting.stop(); await posting.stop() } }
        redirecting.webUser(subject: "browser.redirect", email: "redirect@example.com", clientSecret: "r-secret")
        posting.webUser(subject: "browser.post", clientSecret: "p-secret", formPost: true)
        let store = f.app.store
        let container = try ContainerID("iCloud.com.example.ProviderWeb")
        let token = try await offPool { () -> String in
            try store.createContainer(container)
            try store.identities.saveProvider(try IdentityProvider(name: "keycloak", issuer: redirecting.issuer, clientIDs: ["web"]),
                                              container: container, clientSecret: "r-secret")
            try store.identities.saveProvider(try IdentityProvider(name: "siwa", issuer: posting.issuer, clientIDs: ["com.example.services"]),
                                              container: container, clientSecret: "p-secret")
            return try store.credentials.createAPIToken(container: container, environment: .development, name: "web app",
                                                        allowedOrigins: ["http://127.0.0.1:\(appPort)"]).secret
        }
        let output = try await Self.run(root.appendingPathComponent("Tests/e2e/provider_signin.py"), [
            "STRATUS_URL": f.app.url, "STRATUS_CONTAINER": container.rawValue, "STRATUS_API_TOKEN": token, "STRATUS_APP_PORT": "\(appPort)",
            "STRATUS_REDIRECT_PROVIDER": "keycloak", "STRATUS_POST_PROVIDER": "siwa",
            "STRATUS_SCREENSHOTS": root.appendingPathComponent("test-artifacts/screenshots").path,
        ])
        #expect(output.0 == 0 && output.1.contains("provider sign-in: passed"), "\(output.1)")
        let users = try store.accounts.users(container: container)
        #expect(users.count == 2 && users.contains { $0.email == "redirect@example.com" })
        for line in output.1.split(separator: "\n") where line.hasPrefix("{") {
            let name = try JSON.parse(Data(line.utf8))["userRecordName"]?.string
            #expect(users.contains { $0.userRecordName == name }, "\(line)")
        }
    }

    /// Passkeys in real Chromium (`Tests/e2e/passkeys.py`, WebDriver's virtual authenticator): an account made with
    /// a passkey alone, signed out and in again with it, a second passkey added on the account page, and a copied
    /// authenticator's stale counter refused. The server's public URL is http://localhost:…, the relying party.
    @Test(.enabled(if: available, "chromium, chromium-driver (apt-get install chromium chromium-driver) or python3's requests are not installed"))
    func passkeysSignUpSignInAndRefuseACopyInChromium() async throws {
        let port = try FreePort.belowEphemeralRange()
        var free = try FreePort.belowEphemeralRange()
        while free == port { free = try FreePort.belowEphemeralRange() }
        let appPort = free
        let f = try await ConsoleFixture(configure: { c in
            c.port = port
            c.http.publicURL = "http://localhost:\(port)"
        })
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let store = f.app.store
        let container = try ContainerID("iCloud.com.example.Passkeys")
        let token = try await offPool { () -> String in
            try store.createContainer(container)
            try store.accounts.setSignUpWays([.password, .passkey], container: container)
            return try store.credentials.createAPIToken(container: container, environment: .development, name: "web app",
                                                        allowedOrigins: ["http://127.0.0.1:\(appPort)"]).secret
        }
        let output = try await Self.run(root.appendingPathComponent("Tests/e2e/passkeys.py"), [
            "STRATUS_URL": "http://localhost:\(port)/", "STRATUS_CONTAINER": container.rawValue, "STRATUS_API_TOKEN": token,
            "STRATUS_APP_PORT": "\(appPort)", "STRATUS_SCREENSHOTS": root.appendingPathComponent("test-artifacts/screenshots").path,
        ])
        #expect(output.0 == 0 && output.1.contains("passkeys: passed"), "\(output.1)")
        let users = try store.accounts.users(container: container)
        #expect(users.count == 1 && users.first?.email == "", "one account, with no email")
        if let user = users.first { #expect(try store.passkeys.count(of: user.userRecordName, container: container) == 2) }
    }

    /// An administrator's second factors in real Chromium (`Tests/e2e/admin_second_factor.py`), on a server with
    /// `--require-two-factor` that sends the new administrator to enrol first: an authenticator app enrolled from
    /// the page, its codes computed by the script, a reused code and a used recovery code refused;
    /// a passkey (the virtual authenticator) added, then the second step and the whole sign-in.
    @Test(.enabled(if: available, "chromium, chromium-driver (apt-get install chromium chromium-driver) or python3's requests are not installed"))
    func administratorsSecondFactorsInChromium() async throws {
        let port = try FreePort.belowEphemeralRange()
        let f = try await ConsoleFixture(configure: { c in
            c.port = port
            c.http.publicURL = "http://localhost:\(port)"
            c.requireTwoFactor = true
        })
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        _ = try f.app.store.admins.createAdmin(email: "ops@example.com", password: "a long admin password")
        let output = try await Self.run(root.appendingPathComponent("Tests/e2e/admin_second_factor.py"), [
            "STRATUS_URL": "http://localhost:\(port)/", "STRATUS_ADMIN": "ops@example.com",
            "STRATUS_PASSWORD": "a long admin password",
            "STRATUS_SCREENSHOTS": root.appendingPathComponent("test-artifacts/screenshots").path,
        ])
        #expect(output.0 == 0 && output.1.contains("admin second factor: passed"), "\(output.1)")
        let admin = try #require(try f.app.store.admins.all().first)
        #expect(try f.app.store.admins.passkeys.count(of: admin) == 1)
        #expect(try f.app.store.admins.twoFactor.recoveryCodesLeft(admin) == 9)
    }

    /// Runs a Python browser script with `environment` added to this process's (and CHROMEDRIVER), on a thread of
    /// its own; its exit status and output.
    static func run(_ script: URL, _ environment: [String: String]) async throws -> (Int32, String) {
        try await BlockingWork.shared.run {
            let p = ChildProcess()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", script.path]
            p.environment = ProcessInfo.processInfo.environment.merging(environment.merging(["CHROMEDRIVER": BrowserTests.driver]) { a, _ in a }) { _, b in b }
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }
}
