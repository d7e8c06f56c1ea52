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
                                       Its client is the first --client-id. For apple, the client secret JWT you made \
                                       with your key (at most six months long).
                                       """))
        var clientSecretFile: String?

        func run(_ t: ContainerTarget) throws {
            guard let issuer = issuer ?? (name == "apple" ? IdentityProvider.appleIssuer : nil) else {
                throw ValidationError("--issuer is needed for a provider other than apple")
            }
            let provider = try IdentityProvider(name: name, issuer: issuer, clientIDs: clientIDs)
            let secret = try clientSecretFile.map { path -> String in
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw ValidationError("cannot read \(path)")
                }
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            try t.store.identities.saveProvider(provider, container: t.container, clientSecret: secret)
            try t.audit("add identity provider", "\(provider.name) \(provider.issuer)")
            print("\(provider.name): \(provider.issuer), for \(provider.clientIDs.joined(separator: ", "))"
                  + (secret == nil ? "" : "; signs in on the web as \(provider.clientIDs[0])"))
        }
    }
}
