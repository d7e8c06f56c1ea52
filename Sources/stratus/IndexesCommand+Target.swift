import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension IndexesCommand {
    struct Target: ParsableArguments {
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String

        func open() throws -> EnvironmentStore {
            try options.open().environment(try ContainerID(container), try ContainerEnvironment(parsing: environment))
        }

        func audit(_ action: String, _ name: String) throws {
            try audited(try options.open(), action, container: container, environment: environment, detail: name)
        }
    }
}
