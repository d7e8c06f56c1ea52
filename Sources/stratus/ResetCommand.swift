import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct ResetCommand: ContainerWideCommand {
    static let configuration = CommandConfiguration(commandName: "reset",
        abstract: "Reset Development: delete all its records and zones; its schema goes back to Production's.")
    @OptionGroup var target: ContainerOptions

    func run(_ t: ContainerTarget) throws {
        try t.store.lifecycle.resetDevelopment(t.container)
        try t.audit("reset development", environment: .development)
        print("reset the development environment of \(t.container)")
    }
}
