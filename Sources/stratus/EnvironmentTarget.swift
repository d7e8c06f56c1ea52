import StratusModel
import StratusStore

/// One container environment of an opened store, as a command works on it; what the command changes, it audits here.
struct EnvironmentTarget {
    let store: ServerStore
    let container: ContainerID
    let environment: ContainerEnvironment

    var env: EnvironmentStore { get throws { try store.environment(container, environment) } }

    func audit(_ action: String, _ detail: String = "") throws {
        try audited(store, action, container: container.rawValue, environment: environment.rawValue, detail: detail)
    }
}
