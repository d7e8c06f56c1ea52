import ArgumentParser
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

        func run(_ t: ContainerTarget) throws {
            guard let issuer = issuer ?? (name == "apple" ? IdentityProvider.appleIssuer : nil) else {
                throw ValidationError("--issuer is needed for a provider other than apple")
            }
            let provider = try IdentityProvider(name: name, issuer: issuer, clientIDs: clientIDs)
            try t.store.identities.saveProvider(provider, container: t.container)
            try t.audit("add identity provider", "\(provider.name) \(provider.issuer)")
            print("\(provider.name): \(provider.issuer), for \(provider.clientIDs.joined(separator: ", "))")
        }
    }
}
