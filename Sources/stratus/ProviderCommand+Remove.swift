import ArgumentParser
import StratusModel
import StratusStore

extension AuthCommand.ProviderCommand {
    struct Remove: ContainerWideCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop trusting a provider. Its users keep their accounts, and sign in again once a provider of the same issuer is added.")
        @OptionGroup var target: ContainerOptions
        @Option(help: "The provider's name.") var name: String

        func run(_ t: ContainerTarget) throws {
            try t.store.identities.removeProvider(name, container: t.container)
            try t.audit("remove identity provider", name)
            print("removed \(name)")
        }
    }
}
