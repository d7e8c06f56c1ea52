import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension IndexesCommand {
    struct Unpin: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let an automatic index be dropped again after a week unused.")
        @OptionGroup var target: Target
        @Argument var name: String

        func run() throws { try reportingErrors { try target.open().queryShapes.setAutoIndexPinned(name, false); try target.audit("unpin index", name); print("unpinned \(name)") } }
    }
}
