import Foundation
import StratusModel

/// Named snapshots of container environments (see `EnvironmentStore.snapshot`), kept under `<data>/snapshots`.
extension RecordStore {
    /// Saves an environment's whole state; returns the snapshot's id.
    public func snapshot(_ container: ContainerID, _ environment: ContainerEnvironment, allowProduction: Bool = false) throws(StratusError) -> String {
        if environment == .production && !allowProduction { throw Self.productionAdminRefusal("snapshots") }
        let env = try self.environment(container, environment)
        let id = Secrets.hex(Secrets.randomBytes(12))
        let (file, assets) = try snapshotPaths(container, environment, id)
        try guarded { try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
        try env.snapshot(to: file, assetsCopy: assets)
        PrivateFiles.file(file)
        return id
    }

    /// Brings an environment back to a snapshot of it.
    public func restore(_ container: ContainerID, _ environment: ContainerEnvironment, snapshot id: String, allowProduction: Bool = false) throws(StratusError) {
        if environment == .production && !allowProduction { throw Self.productionAdminRefusal("restores") }
        let env = try self.environment(container, environment)
        let (file, assets) = try snapshotPaths(container, environment, id)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw StratusError(.notFound, "there is no snapshot '\(id)' of \(container.rawValue) (\(environment.rawValue))")
        }
        try env.restore(from: file, assetsCopy: assets)
    }

    private func snapshotPaths(_ container: ContainerID, _ environment: ContainerEnvironment, _ id: String) throws(StratusError) -> (URL, URL) {
        guard let dataDirectory else {
            throw StratusError.badRequest("snapshots are of SQLite environments (--data); on PostgreSQL use its own tools (pg_dump, a template database)")
        }
        // The id names a file: nothing but what `snapshot` makes.
        guard id.utf8.count == 24, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { throw StratusError.badRequest("'\(id.prefix(40))' is not a snapshot id") }
        let dir = dataDirectory.appendingPathComponent("snapshots").appendingPathComponent(container.rawValue).appendingPathComponent(environment.rawValue)
        return (dir.appendingPathComponent("\(id).sqlite"), dir.appendingPathComponent("\(id)-assets"))
    }
}
