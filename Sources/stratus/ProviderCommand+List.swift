import ArgumentParser
import StratusModel
import StratusStore

extension AuthCommand.ProviderCommand {
    struct List: ContainerWideCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's providers (name, issuer, client IDs).")
        @OptionGroup var target: ContainerOptions

        func run(_ t: ContainerTarget) throws {
            for p in try t.store.identities.providers(container: t.container) {
                print("\(p.name)\t\(p.issuer)\t\(p.clientIDs.joined(separator: ","))")
            }
        }
    }
}
