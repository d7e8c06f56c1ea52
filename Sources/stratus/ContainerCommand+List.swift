import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension ContainerCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List containers.")
        @OptionGroup var options: DataOptions

        func run() throws {
            try reportingErrors {
                for c in try options.open().containers() { print(c.id) }
            }
        }
    }
}
