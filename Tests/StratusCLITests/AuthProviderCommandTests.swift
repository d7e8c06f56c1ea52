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
