import Foundation
import Testing
import StratusTestSupport
import StratusModel
@testable import StratusStore
@testable import StratusConsole

/// A second factor for administrators, as one enrols and uses it: an authenticator app's secret shown as a QR code
/// (read back by a real decoder) and text, confirmed by a code; each sign-in then asks for a code, each code used
/// once; recovery codes sign in once each; `--require-two-factor` sends an administrator without one to enrol.
@Suite struct ConsoleTwoFactorTests {
    static func code(_ secret: String, at millis: Int64 = WallClock.nowMillis()) -> String {
        TOTP.code(secret: TOTP.base32Decoded(secret.replacingOccurrences(of: " ", with: "")) ?? Data(),
                  step: TOTP.step(at: millis))
    }

    @Test func totpIsRFC6238() {
        // RFC 6238's SHA-1 test vectors (the secret "12345678901234567890"), their last six digits.
        let secret = Data("12345678901234567890".utf8)
        for (seconds, expected) in [(59, "287082"), (1_111_111_109, "081804"), (1_234_567_890, "005924"), (2_000_000_000, "279037")] {
            #expect(TOTP.code(secret: secret, step: TOTP.step(at: Int64(seconds) * 1000)) == expected)
        }
        #expect(TOTP.base32Decoded(TOTP.base32(secret)) == secret)
    }

    @Test func anAdministratorEnrolsAndEachSignInAsksForACode() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let status = try await s.get("/console/two-factor")
        #expect(status.status == 200 && status.html.contains("Set up an authenticator app"))
        let enrol = try await s.post("/console/two-factor/totp")
        let secret = try #require(enrol.html.firstMatch(of: #/Secret: <code class="mono">([A-Z2-7 ]+)</code>/#).map { String($0.output.1) })
        #expect(enrol.html.contains("otpauth://totp/Stratus:admin@example.com?secret="))
        // The QR code holds the same URI, as a real decoder reads it.
        let svg = try #require(enrol.html.firstMatch(of: #/<svg[^>]*aria-label="QR code[^"]*"[\s\S]*?</svg>/#).map { String($0.output) })
        if Prerequisites.available(Prerequisites.pythonModules(["zxingcpp", "PIL"])) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).svg")
            defer { try? FileManager.default.removeItem(at: file) }
            try svg.write(to: file, atomically: true, encoding: .utf8)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("e2e/read_qr.py")
            let read = try await offPool { try Tools.run("python3", [script.path, file.path]) }
            #expect(read.status == 0 && read.output.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "otpauth://totp/Stratus:admin@example.com?secret=\(secret.replacingOccurrences(of: " ", with: ""))&issuer=Stratus&algorithm=SHA1&digits=6&period=30",
                    "\(read.output)")
        } else {
            print("QR decoding skipped: pip install zxing-cpp pillow")
        }
        let wrong = try await s.post("/console/two-factor/totp/confirm", [("code", "000000")])
        #expect(wrong.status == 400 && wrong.html.contains("not the app"))
        // A code of the step before is taken (a clock a step off); the codes come once.
        let confirmed = try await s.post("/console/two-factor/totp/confirm", [("code", Self.code(secret, at: WallClock.nowMillis() - 30_000))])
        let codes = confirmed.html.matches(of: #/<li>([a-z2-9]{5}-[a-z2-9]{5})</li>/#).map { String($0.output.1) }
        #expect(confirmed.status == 200 && codes.count == 10, "\(confirmed.html)")

        // The next sign-in reaches only the second step until a code is given.
        let login = try await f.request("/console/login", form: ["email": "admin@example.com", "password": "a long admin password"])
        let cookie = try #require(ConsoleFixture.sessionCookie(login))
        let home = try await f.request("/console/", cookie: cookie)
        #expect(home.status == 303 && home.headers["location"] == "/console/two-factor")
        let stepPage = try await f.request("/console/two-factor", cookie: cookie)
        let csrf = try #require(ConsoleFixture.csrf(stepPage.html))
        let pending = ConsoleSession(f: f, cookie: cookie, csrf: csrf)
        #expect(try await pending.get("/console/administrators").status == 303, "no page before the second step")
        #expect(try await pending.post("/console/two-factor", [("code", "123456")]).status == 401)
        let now = Self.code(secret)
        #expect(try await pending.post("/console/two-factor", [("code", now)]).status == 303)
        #expect(try await pending.get("/console/").status == 200)

        // The same code again (a second sign-in, replaying it): refused; a recovery code works once.
        let again = try await ConsoleSession.signInAgainPending(f)
        #expect(try await again.post("/console/two-factor", [("code", now)]).status == 401, "a code is used once")
        #expect(try await again.post("/console/two-factor", [("code", codes[0])]).status == 303)
        let third = try await ConsoleSession.signInAgainPending(f)
        #expect(try await third.post("/console/two-factor", [("code", codes[0])]).status == 401, "a recovery code is used once")
        #expect(try f.app.store.admins.twoFactor.recoveryCodesLeft(try #require(try f.app.store.admins.all().first)) == 9)

        // An owner resets it (audited): the admin signs in with the password alone again.
        let admins = try await third.get("/console/administrators")
        #expect(admins.status == 303, "still waiting for the second step")
        #expect(try await pending.get("/console/administrators").html.contains("authenticator app"))
        #expect(try await pending.post("/console/administrators/reset-two-factor", [("email", "admin@example.com")]).status == 303)
        #expect(try await pending.get("/console/").status == 303, "the reset ended the admin's sessions")
        let after = try await f.request("/console/login", form: ["email": "admin@example.com", "password": "a long admin password"])
        let home2 = try await f.request("/console/", cookie: try #require(ConsoleFixture.sessionCookie(after)))
        #expect(home2.status == 200)
    }

    @Test func requireTwoFactorSendsAnAdministratorToEnrol() async throws {
        let f = try await ConsoleFixture(configure: { $0.requireTwoFactor = true })
        _ = try f.app.store.admins.createAdmin(email: "admin@example.com", password: "a long admin password")
        let s = try await ConsoleSession.signInAgainPending(f)
        let home = try await s.get("/console/")
        #expect(home.status == 303 && home.headers["location"] == "/console/two-factor")
        let page = try await s.get("/console/two-factor")
        #expect(page.html.contains("requires every administrator to have a second factor"))
        let enrol = try await s.post("/console/two-factor/totp")
        let secret = try #require(enrol.html.firstMatch(of: #/Secret: <code class="mono">([A-Z2-7 ]+)</code>/#).map { String($0.output.1) })
        #expect(try await s.post("/console/two-factor/totp/confirm", [("code", Self.code(secret))]).status == 200)
        #expect(try await s.get("/console/").status == 200)
    }
}

extension ConsoleSession {
    /// A new password sign-in of an admin with a second factor (or one the server sends to enrol): the session,
    /// its form token read from the two-factor page.
    static func signInAgainPending(_ f: ConsoleFixture, email: String = "admin@example.com") async throws -> ConsoleSession {
        try await signInAgain(f, email: email, page: "/console/two-factor")
    }
}
