import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension ContainerCommand {
    /// `create` and `delete`: each names a container, makes its change, audits it and says what it did.
    protocol Change: ParsableCommand {
        /// "create" or "delete": the audit's action and, with a "d", what is printed.
        static var verb: String { get }
        var options: DataOptions { get }
        var container: String { get }
        func apply(_ store: ServerStore, _ id: ContainerID) throws
    }
}

extension ContainerCommand.Change {
    func run() throws {
        try reportingErrors {
            let id = try ContainerID(container)
            let store = try options.open()
            try apply(store, id)
            try audited(store, "\(Self.verb) container", container: id.rawValue)
            print("\(Self.verb)d \(id)")
        }
    }
}
