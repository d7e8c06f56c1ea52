/// What `stratus indexes pin|unpin|drop NAME` does to an automatic index: the three differ only in this, so one
/// command (`ChangeAutoIndex`) serves them.
enum AutoIndexChange: String {
    case pin, unpin, drop

    var abstract: String {
        switch self {
        case .pin: "Keep an automatic index even when it goes unused."
        case .unpin: "Let an automatic index be dropped again after a week unused."
        case .drop: "Drop an automatic index (it may be built again if its shape stays frequent and expensive)."
        }
    }

    /// What the command prints after the index's name.
    var done: String { self == .drop ? "dropped" : "\(rawValue)ned" }

    func apply(to name: String, _ t: EnvironmentTarget) throws {
        let shapes = try t.env.queryShapes
        switch self {
        case .pin, .unpin: try shapes.setAutoIndexPinned(name, self == .pin)
        case .drop: try shapes.dropAutoIndex(name)
        }
    }
}

/// Names one `AutoIndexChange` as a type, so that `ChangeAutoIndex` can be registered once per change.
protocol NamedAutoIndexChange { static var change: AutoIndexChange { get } }
enum PinIndex: NamedAutoIndexChange { static let change = AutoIndexChange.pin }
enum UnpinIndex: NamedAutoIndexChange { static let change = AutoIndexChange.unpin }
enum DropIndex: NamedAutoIndexChange { static let change = AutoIndexChange.drop }
