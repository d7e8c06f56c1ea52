import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension IndexesCommand {
    struct List: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "List the automatic indexes: name, fields, pinned, last used, the shape they serve.")
        @OptionGroup var target: EnvironmentOptions

        func run(_ t: EnvironmentTarget) throws {
            let indexes = try t.env.queryShapes.autoIndexes()
            if indexes.isEmpty { print("no automatic indexes") }
            for ai in indexes {
                let fields = (ai.equalityFields + (ai.orderField.map { [$0] } ?? [])).joined(separator: ",")
                let used = Date(timeIntervalSince1970: Double(ai.lastUsedAt) / 1000).ISO8601Format()
                print("\(ai.name)\t\(ai.recordType)(\(fields))\t\(ai.pinned ? "pinned" : "unpinned")\tlast used \(used)\tbuilt in \(String(format: "%.0f", ai.buildMilliseconds)) ms\t\(ai.shape)")
            }
        }
    }
}
