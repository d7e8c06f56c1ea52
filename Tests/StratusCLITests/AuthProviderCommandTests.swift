import Crypto
import Foundation
import Testing
import StratusModel
import StratusStore

/// `stratus auth provider add|list|remove`: the OpenID providers a container's users sign in with.
@Suite struct AuthProviderCommandTests {
    /// A data directory with one container, and the options that name it; the directory goes with `cleanUp`.
    static func container(_ name: String) async throws -> (scope: [String], cleanUp: () -> Void) {
        let data = Executables.temporaryDirectory()
        let container = try ContainerID(name)
        try await Executables.offPool { try ServerStore(dataDirectory: data).createContainer(container) }
        return (["--data", data.path, "--container", container.rawValue], { try? FileManager.default.removeItem(at: data) })
    }

    @Test func providersAreAddedListedChangedAndRemoved() async throws {
        let (scope, cleanUp) = try await Self.container("iCloud.com.example.Providers")
        defer { cleanUp() }
        let apple = try await Executables.run("stratus", ["auth", "provider", "add", "--name", "apple", "--client-id", "com.example.app"] + scope)
        #expect(apple.status == 0, "\(apple.stderr)")
        #expect(apple.stdout.contains(IdentityProvider.appleIssuer), "apple's issuer is the default for --name apple")
        let google = try await Executables.run("stratus", ["auth", "provider", "add", "--name", "google", "--issuer", "https://accounts.google.com",
                                                           "--client-id", "web.apps.googleusercontent.com", "--client-id", "ios.apps.googleusercontent.com"] + scope)
        #expect(google.status == 0, "\(google.stderr)")
        var listed = try await Executables.run("stratus", ["auth", "provider", "list"] + scope)
        #expect(listed.stdout == "apple\t\(IdentityProvider.appleIssuer)\tcom.example.app\ngoogle\thttps://accounts.google.com\tweb.apps.googleusercontent.com,ios.apps.googleusercontent.com\n")

        // What is not a provider is refused, saying why, and changes nothing.
        for bad in [["--name", "google", "--issuer", "http://accounts.google.com", "--client-id", "x"],
                    ["--name", "tenant", "--issuer", "https://login.microsoftonline.com/{tenantid}/v2.0", "--client-id", "x"],
                    ["--name", "no-client", "--issuer", "https://id.example.com"],
                    ["--name", "custom", "--client-id", "x"],
                    ["--name", "bad name!", "--issuer", "https://id.example.com", "--client-id", "x"]] {
            let r = try await Executables.run("stratus", ["auth", "provider", "add"] + bad + scope)
            #expect(r.status != 0 && !r.stderr.isEmpty, "\(bad) was accepted")
        }
        // A local provider on loopback may be plain http.
        let local = try await Executables.run("stratus", ["auth", "provider", "add", "--name", "dev", "--issuer", "http://127.0.0.1:8081",
                                                          "--client-id", "local"] + scope)
        #expect(local.status == 0, "\(local.stderr)")

        let removed = try await Executables.run("stratus", ["auth", "provider", "remove", "--name", "google"] + scope)
        #expect(removed.status == 0 && removed.stdout.contains("removed google"))
        let again = try await Executables.run("stratus", ["auth", "provider", "remove", "--name", "google"] + scope)
        #expect(again.status != 0 && again.stderr.contains("no provider"))
        listed = try await Executables.run("stratus", ["auth", "provider", "list"] + scope)
        #expect(listed.stdout == "apple\t\(IdentityProvider.appleIssuer)\tcom.example.app\ndev\thttp://127.0.0.1:8081\tlocal\n")
    }

    /// Apple's web sign-in from the operator's key: the three options together, the key a P-256 `.p8`; the
    /// provider then has a button on the sign-in page. A key that is not one, or half the options, is refused.
    @Test func applesKeyMakesItsWebSignIn() async throws {
        let (scope, cleanUp) = try await Self.container("iCloud.com.example.AppleKey")
        defer { cleanUp() }
        let dir = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let p8 = dir.appendingPathComponent("AuthKey.p8"), junk = dir.appendingPathComponent("junk.p8")
        try P256.Signing.PrivateKey().pemRepresentation.write(to: p8, atomically: true, encoding: .utf8)
        try "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n".write(to: junk, atomically: true, encoding: .utf8)
        let add = ["auth", "provider", "add", "--name", "apple", "--client-id", "com.example.web"]
        for bad in [["--apple-team-id", "TEAM123456", "--apple-key-id", "KEY9876543"],
                    ["--apple-team-id", "TEAM123456", "--apple-key-id", "KEY9876543", "--apple-private-key-file", junk.path],
                    ["--apple-team-id", "team", "--apple-key-id", "KEY9876543", "--apple-private-key-file", p8.path]] {
            let r = try await Executables.run("stratus", add + bad + scope)
            #expect(r.status != 0 && !r.stderr.isEmpty, "\(bad) was accepted")
        }
        let made = try await Executables.run("stratus", add + ["--apple-team-id", "TEAM123456", "--apple-key-id", "KEY9876543",
                                                              "--apple-private-key-file", p8.path] + scope)
        #expect(made.status == 0 && made.stdout.contains("signs in on the web as com.example.web"), "\(made.stderr)")
        #expect(!made.stdout.contains("PRIVATE KEY") && !made.stderr.contains("PRIVATE KEY"), "the key is never printed")
        let data = URL(fileURLWithPath: scope[1])
        let web = try await Executables.offPool {
            let store = try ServerStore(dataDirectory: data)
            defer { store.close() }
            return try store.identities.webProviders(container: try ContainerID("iCloud.com.example.AppleKey"))
        }
        #expect(web == ["apple"])
    }

    /// `stratus auth sign-up`: prints the ways new accounts are made, or chooses them.
    @Test func signUpWaysArePrintedAndChosen() async throws {
        let (scope, cleanUp) = try await Self.container("iCloud.com.example.SignUp")
        defer { cleanUp() }
        #expect(try await Executables.run("stratus", ["auth", "sign-up"] + scope).stdout == "password,provider\n")
        let chosen = try await Executables.run("stratus", ["auth", "sign-up", "--allow", "provider"] + scope)
        #expect(chosen.status == 0 && chosen.stdout == "provider\n", "\(chosen.stderr)")
        #expect(try await Executables.run("stratus", ["auth", "sign-up"] + scope).stdout == "provider\n")
        let bad = try await Executables.run("stratus", ["auth", "sign-up", "--allow", "password,magic"] + scope)
        #expect(bad.status != 0 && bad.stderr.contains("magic"))
        #expect(try await Executables.run("stratus", ["auth", "sign-up", "--allow", "none"] + scope).stdout == "none\n")
        #expect(try await Executables.run("stratus", ["auth", "sign-up"] + scope).stdout == "none\n")
    }
}
