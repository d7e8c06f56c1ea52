import ArgumentParser

/// `stratus indexes pin|unpin|drop NAME`: one change to one automatic index, audited.
struct ChangeAutoIndex<Named: NamedAutoIndexChange>: EnvironmentCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Named.change.rawValue, abstract: Named.change.abstract)
    }
    @OptionGroup var target: EnvironmentOptions
    @Argument(help: "The index's name, as `stratus indexes list` prints it.") var name: String

    func run(_ t: EnvironmentTarget) throws {
        try Named.change.apply(to: name, t)
        try t.audit("\(Named.change.rawValue) index", name)
        print("\(Named.change.done) \(name)")
    }
}
