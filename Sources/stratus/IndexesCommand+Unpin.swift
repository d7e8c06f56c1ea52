import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension IndexesCommand {
    struct Unpin: Pinning {
        static let configuration = CommandConfiguration(abstract: "Let an automatic index be dropped again after a week unused.")
        static let pins = false
        @OptionGroup var target: EnvironmentOptions
        @Argument var name: String
    }
}
