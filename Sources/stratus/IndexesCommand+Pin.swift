import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension IndexesCommand {
    struct Pin: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Keep an automatic index even when it goes unused.")
        @OptionGroup var target: Target
        @Argument var name: String

        func run() throws { try reportingErrors { try target.open().queryShapes.setAutoIndexPinned(name, true); try target.audit("pin index", name); print("pinned \(name)") } }
    }
}
