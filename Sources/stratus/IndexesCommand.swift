import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus indexes list|pin|drop`: the composite indexes Stratus built for query shapes (see the Query shapes page).
struct IndexesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "indexes", abstract: "List, pin and drop the indexes Stratus built for query shapes.",
                                                    subcommands: [List.self, Pin.self, Unpin.self, Drop.self])

    struct Target: ParsableArguments {
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String

        func open() throws -> EnvironmentStore {
            try options.open().environment(try ContainerID(container), try ContainerEnvironment(parsing: environment))
        }

        func audit(_ action: String, _ name: String) throws {
            try audited(try options.open(), action, container: container, environment: environment, detail: name)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the automatic indexes: name, fields, pinned, last used, the shape they serve.")
        @OptionGroup var target: Target

        func run() throws {
            try reportingErrors {
                let indexes = try target.open().queryShapes.autoIndexes()
                if indexes.isEmpty { print("no automatic indexes") }
                for ai in indexes {
                    let fields = (ai.equalityFields + (ai.orderField.map { [$0] } ?? [])).joined(separator: ",")
                    let used = Date(timeIntervalSince1970: Double(ai.lastUsedAt) / 1000).ISO8601Format()
                    print("\(ai.name)\t\(ai.recordType)(\(fields))\t\(ai.pinned ? "pinned" : "unpinned")\tlast used \(used)\tbuilt in \(String(format: "%.0f", ai.buildMilliseconds)) ms\t\(ai.shape)")
                }
            }
        }
    }

    struct Pin: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Keep an automatic index even when it goes unused.")
        @OptionGroup var target: Target
        @Argument var name: String

        func run() throws { try reportingErrors { try target.open().queryShapes.setAutoIndexPinned(name, true); try target.audit("pin index", name); print("pinned \(name)") } }
    }

    struct Unpin: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let an automatic index be dropped again after a week unused.")
        @OptionGroup var target: Target
        @Argument var name: String

        func run() throws { try reportingErrors { try target.open().queryShapes.setAutoIndexPinned(name, false); try target.audit("unpin index", name); print("unpinned \(name)") } }
    }

    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Drop an automatic index (it may be built again if its shape stays frequent and expensive).")
        @OptionGroup var target: Target
        @Argument var name: String

        func run() throws { try reportingErrors { try target.open().queryShapes.dropAutoIndex(name); try target.audit("drop index", name); print("dropped \(name)") } }
    }
}
