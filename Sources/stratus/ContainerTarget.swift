import StratusModel
import StratusStore

/// A container of an opened store, as a command works on it; what the command changes, it audits here.
struct ContainerTarget {
    let store: ServerStore
    let container: ContainerID

    func audit(_ action: String, _ detail: String = "", environment: ContainerEnvironment? = nil) throws {
        try audited(store, action, container: container.rawValue, environment: environment?.rawValue, detail: detail)
    }
}
