import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension IndexesCommand {
    struct Drop: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Drop an automatic index (it may be built again if its shape stays frequent and expensive).")
        @OptionGroup var target: EnvironmentOptions
        @Argument var name: String

        func run(_ t: EnvironmentTarget) throws {
            try t.env.queryShapes.dropAutoIndex(name)
            try t.audit("drop index", name)
            print("dropped \(name)")
        }
    }
}
