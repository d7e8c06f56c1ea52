import ArgumentParser
import StratusModel

/// `--container` and `--environment` with the store's options: what a command about one container environment takes.
struct EnvironmentOptions: ParsableArguments {
    @OptionGroup var data: DataOptions
    @Option(help: "The container identifier, e.g. iCloud.com.example.Notes.") var container: String
    @Option(help: "development or production.") var environment: String

    /// The store opened, and the container environment named.
    func open() throws -> EnvironmentTarget {
        let container = try ContainerID(container), environment = try ContainerEnvironment(parsing: environment)
        return EnvironmentTarget(store: try data.open(), container: container, environment: environment)
    }
}
