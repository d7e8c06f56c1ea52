import StratusHTTP

/// The containers: the list, creating one, the audit log, and what acts on a whole container — deploying its
/// schema to Production and deleting it. The container-wide pages carry no environment in their URL; they are
/// drawn as Development's.
struct ContainerPages: ConsolePageGroup {
    let console: Console
}
