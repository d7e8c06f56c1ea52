import ArgumentParser

/// A command about one container environment: the store is opened and the target parsed before its body runs,
/// and a failure is one readable line and exit status 1 (`reportingErrors`).
protocol EnvironmentCommand: ParsableCommand {
    var target: EnvironmentOptions { get }
    func run(_ t: EnvironmentTarget) throws
}

extension EnvironmentCommand {
    func run() throws { try reportingErrors { try run(target.open()) } }
}

/// A command about a whole container, run as an `EnvironmentCommand` is.
protocol ContainerWideCommand: ParsableCommand {
    var target: ContainerOptions { get }
    func run(_ t: ContainerTarget) throws
}

extension ContainerWideCommand {
    func run() throws { try reportingErrors { try run(target.open()) } }
}
