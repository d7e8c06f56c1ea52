import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension IndexesCommand {
    /// `pin` and `unpin`: one change told two ways, so they share their arguments and their run.
    protocol Pinning: EnvironmentCommand {
        static var pins: Bool { get }
        var name: String { get }
    }
}

extension IndexesCommand.Pinning {
    func run(_ t: EnvironmentTarget) throws {
        let verb = Self.pins ? "pin" : "unpin"
        try t.env.queryShapes.setAutoIndexPinned(name, Self.pins)
        try t.audit("\(verb) index", name)
        print("\(verb)ned \(name)")
    }
}
