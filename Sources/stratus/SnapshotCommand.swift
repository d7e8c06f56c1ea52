import ArgumentParser

/// `stratus snapshot --container C --environment E`: saves an environment's whole state and prints the id
/// `stratus restore --snapshot` (or `POST /-/admin/containers/C/E/restore`) brings it back with.
struct SnapshotCommand: EnvironmentCommand {
    static let configuration = CommandConfiguration(commandName: "snapshot",
                                                    abstract: "Save an environment's whole state (records, zones, tokens, subscriptions, schema) and print its id.")
    @OptionGroup var target: EnvironmentOptions
    @Flag(help: "Allow a snapshot of Production: it copies real users' data.") var allowProductionAdmin = false

    func run(_ t: EnvironmentTarget) throws {
        let id = try t.store.lifecycle.snapshot(t.container, t.environment, allowProduction: allowProductionAdmin)
        try t.audit("snapshot", id)
        print(id)
    }
}
