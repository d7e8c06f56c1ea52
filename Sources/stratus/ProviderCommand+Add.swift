import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension AuthCommand.ProviderCommand {
    struct Add: ContainerWideCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trust an OpenID provider's identity tokens (or change the one of that name).",
            discussion: """
                Apps trade the provider's identity tokens for web auth tokens at POST /auth/1/{container}/{environment}/token. \
                The issuer is https (plain http only on loopback); its keys are read from its discovery document. \
                Multi-tenant issuers ({tenantid}) are not supported: add each tenant as a provider of its own.
                """)
        @OptionGroup var target: ContainerOptions
        @Option(help: "The provider's name, as apps send it (\"apple\", \"google\").") var name: String
        @Option(help: "The issuer, as its tokens' iss spells it (for --name apple: \(IdentityProvider.appleIssuer) unless given).")
        var issuer: String?
        @Option(name: .customLong("client-id"),
                help: "A client ID the tokens may be for (their aud; repeatable: an app's bundle ID, its services ID).")
        var clientIDs: [String] = []
        @Option(name: .customLong("client-secret-file"),
                help: ArgumentHelp("A file holding the client secret of the web sign-in (the sign-in page's button).",
                                   discussion: """
                                       Its client is the first --client-id. For apple, give Apple's key instead \
                                       (--apple-team-id, --apple-key-id, --apple-private-key-file): Stratus makes the \
                                       client secret with it.
                                       """))
        var clientSecretFile: String?
        @Option(name: .customLong("apple-team-id"), help: "Apple's web sign-in: your team ID (10 characters).")
        var appleTeamID: String?
        @Option(name: .customLong("apple-key-id"), help: "Apple's web sign-in: the ID of your Sign in with Apple key.")
        var appleKeyID: String?
        @Option(name: .customLong("apple-private-key-file"),
                help: ArgumentHelp("Apple's web sign-in: the key's .p8 file.", discussion: """
                    Stratus signs each client secret with it (ES256, six months at most, made again before it \
                    expires) for the services ID, the first --client-id.
                    """))
        var applePrivateKeyFile: String?

        func run(_ t: ContainerTarget) throws {
            guard let issuer = issuer ?? (name == "apple" ? IdentityProvider.appleIssuer : nil) else {
                throw ValidationError("--issuer is needed for a provider other than apple")
            }
            let provider = try IdentityProvider(name: name, issuer: issuer, clientIDs: clientIDs)
            let secret = try webSecret()
            try t.store.identities.saveProvider(provider, container: t.container, secret: secret)
            try t.audit("add identity provider", "\(provider.name) \(provider.issuer)")
            print("\(provider.name): \(provider.issuer), for \(provider.clientIDs.joined(separator: ", "))"
                  + (secret == nil ? "" : "; signs in on the web as \(provider.clientIDs[0])"))
        }

        /// The web sign-in's secret the options give: a file's, Apple's key (all three options), or none.
        private func webSecret() throws -> WebClientSecret? {
            let apple = [appleTeamID, appleKeyID, applePrivateKeyFile]
            if apple.contains(where: { $0 != nil }) {
                guard clientSecretFile == nil else {
                    throw ValidationError("give --client-secret-file or Apple's key, not both")
                }
                guard let team = appleTeamID, let key = appleKeyID, let file = applePrivateKeyFile else {
                    throw ValidationError("Apple's key needs --apple-team-id, --apple-key-id and --apple-private-key-file")
                }
                return .apple(try AppleSigningKey(teamID: team, keyID: key, privateKeyPEM: try Self.read(file)))
            }
            return try clientSecretFile.map { .fixed(try Self.read($0)) }
        }

        private static func read(_ path: String) throws -> String {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ValidationError("cannot read \(path)")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
