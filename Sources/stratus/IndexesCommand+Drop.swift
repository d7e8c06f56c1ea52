import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension IndexesCommand {
    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Drop an automatic index (it may be built again if its shape stays frequent and expensive).")
        @OptionGroup var target: Target
        @Argument var name: String

        func run() throws { try reportingErrors { try target.open().queryShapes.dropAutoIndex(name); try target.audit("drop index", name); print("dropped \(name)") } }
    }
}
