import ArgumentParser
import StratusModel

/// `--container` with the store's options: what a command about a whole container takes.
struct ContainerOptions: ParsableArguments {
    @OptionGroup var data: DataOptions
    @Option(help: "The container identifier, e.g. iCloud.com.example.Notes.") var container: String

    /// The store opened, and the container named.
    func open() throws -> ContainerTarget {
        let container = try ContainerID(container)
        return ContainerTarget(store: try data.open(), container: container)
    }
}
