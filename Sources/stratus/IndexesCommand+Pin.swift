import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension IndexesCommand {
    struct Pin: Pinning {
        static let configuration = CommandConfiguration(abstract: "Keep an automatic index even when it goes unused.")
        static let pins = true
        @OptionGroup var target: EnvironmentOptions
        @Argument var name: String
    }
}
