import Foundation
import StratusModel

/// `stratus migrate`: copies a whole store into an empty store on the other backend (SQLite → PostgreSQL and
/// back), then checks that every copied table holds the same rows on both sides.
///
/// Rows are copied as they are, ids included, so that everything that names a row keeps working: API tokens,
/// sessions, sync tokens, continuation markers (each environment's signing secret is copied too), share URLs.
/// A record type's table is built on the target from the copied catalog, filled, and only then given its indexes
/// and index tables (full-text, location, list keys), which each engine builds its own way. Asset content moves
/// between files and the database's chunks. Not copied: the request log, telemetry and automatic indexes, which
/// the target gathers afresh. The source may be serving: on PostgreSQL the whole store is read at one moment (a
/// REPEATABLE READ transaction exports its snapshot, and each environment's read takes it); on SQLite each
/// environment is read in one read transaction, so a live source gives a consistent copy of each environment.
public enum StoreMigration {
    public struct Report: Sendable {
        public var containers = 0
        public var tables = 0
        public var rows: Int64 = 0
        public var records: Int64 = 0
        public var assets = 0
    }

    /// The control database's tables, copied in this order.
    static let controlTables = ["containers", "api_tokens", "users", "web_tokens", "server_keys", "admins",
                                "admin_sessions", "audit", "faults", "apns_credentials"]
    /// An environment's tables besides its record types' (index tables are rebuilt, not copied).
    static let environmentTables = ["meta", "secrets", "zones", "record_types", "fields", "roles", "role_members",
                                    "record_log", "cascade_refs",
                                    "assets", "deployments", "subscriptions", "record_counts", "courier_tokens", "webhooks", "webhook_deliveries",
                                    "notification_log", "notification_recipients", "user_usage", "shares", "share_participants", "record_links", "shared_zone_log", "query_shapes",
                                    "apns_devices", "apns_deliveries", "change_counters", "asset_uploads", "notification_outbox"]

    /// Copies `source` into `target`, which must hold nothing yet; `progress` hears a line per step.
    public static func copy(from source: ServerStore, to target: ServerStore,
                            progress: (String) -> Void = { _ in }) throws(StratusError) -> Report {
        var report = Report()
        try guarded {
            try requireEmpty(target)
            defer { target.forgetEnvironments() }
            // Control data first: opening the target's environments needs their containers. The source's reads all
            // take the snapshot this one exports (PostgreSQL), so the copy is of one moment while the source serves.
            var containers: [ContainerID] = []
            func environments(_ snapshot: String?) throws {
                for container in containers {
                    report.containers += 1
                    for env in ContainerEnvironment.allCases {
                        try copyEnvironment(try source.environment(container, env),
                                            to: try target.environment(container, env), snapshot: snapshot,
                                report: &report)
                        progress("\(container.rawValue) \(env.rawValue): copied and verified")
                    }
                }
            }
            let exported = try source.control.exportingSnapshot { s, snapshot -> String? in
                var sums: [String: Checksum] = [:]
                try target.control.write { t in
                    for table in controlTables { sums[table] = try copyTable(table, from: s, to: t, report: &report) }
                    try TableCopy.resetIdentities(t)
                }
                try verify(sums, in: target.control)
                progress("control data: \(controlTables.count) tables, \(report.rows) rows")
                containers = try ContainerRows.all(s).map(\.id)
                // PostgreSQL: inside the exporting transaction, so every environment is read at its moment.
                if let snapshot { try environments(snapshot) }
                return snapshot
            }
            // SQLite: after the control file's read (opening an environment reads it too); each environment in its
            // own read transaction.
            if exported == nil { try environments(nil) }
        }
        return report
    }

    /// Refuses a target that holds anything: a copy goes into a new database or directory.
    static func requireEmpty(_ target: ServerStore) throws {
        try target.control.read { t in
            for table in controlTables where try TableCopy.hasRows(table, t) {
                throw StratusError(.badRequest,
                                   "the target is not empty (its \(table) table has rows): migrate into a new database or directory")
            }
        }
    }

    private static func copyEnvironment(_ source: EnvironmentStore, to target: EnvironmentStore, snapshot: String?,
                                        report: inout Report) throws {
        var sums: [String: Checksum] = [:]
        var checksums: [String] = []
        try source.core.database.snapshotRead(snapshot) { s in
            let catalog = try SchemaStorage.load(s)
            try target.core.database.write { t in
                for table in environmentTables { sums[table] = try copyTable(table, from: s, to: t, report: &report) }
                for type in catalog.types {
                    try SchemaStorage.createTables(of: type, t)
                    let sum = try copyTable(type.table, from: s, to: t, report: &report)
                    report.records += sum.count
                    sums[type.table] = sum
                    try SchemaStorage.createIndexes(of: type, t)
                }
                try TableCopy.resetIdentities(t)
            }
            checksums = try AssetRows.checksums(s)
        }
        try verify(sums, in: target.core.database)
        for checksum in checksums {
            guard let data = source.assets.assetContent(checksum: checksum) else {
                throw StratusError(.internalError,
                                   "asset \(checksum.prefix(64)) of \(source.container.rawValue) \(source.environment.rawValue) has no content in the source")
            }
            try target.assets.storeAssetContent(data, checksum: checksum)
            guard target.assets.assetContent(checksum: checksum) == data else { throw StratusError(.internalError,
                    "asset \(checksum.prefix(64)) did not read back whole") }
            report.assets += 1
        }
    }

    /// How many rows a table holds and a sum of their hashes: equal on both sides when the same rows are there,
    /// in whatever order each engine returns them. Compared within one process (the copy and its check), so the
    /// hash is Swift's, seeded per process, not a cryptographic one: it only has to tell rows apart.
    struct Checksum: Equatable {
        /// The columns hashed, in order (the source's order: the target's may differ).
        var columns: [String] = []
        var count: Int64 = 0
        var sum: UInt64 = 0

        mutating func add(_ row: [SQLValue]) {
            var hasher = Hasher()
            for v in row {
                switch v {
                case .null: hasher.combine(0 as UInt8)
                case .int64(let i): hasher.combine(1 as UInt8); hasher.combine(i)
                // A whole number the same whichever type holds it: an SQLite column declared INTEGER keeps
                // whole seconds of a TIMESTAMP as integers, PostgreSQL's DOUBLE PRECISION column as doubles.
                case .double(let d) where d == d.rounded() && abs(d) < 9.0e15: hasher.combine(1 as UInt8); hasher.combine(Int64(d))
                case .double(let d): hasher.combine(2 as UInt8); hasher.combine(d.bitPattern)
                case .text(let s): hasher.combine(3 as UInt8); hasher.combine(s.utf8.count); s.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) } ?? hasher.combine(s)
                case .blob(let b): hasher.combine(4 as UInt8); hasher.combine(b.count); b.withUnsafeBytes { hasher.combine(bytes: $0) }
                }
            }
            sum &+= UInt64(bitPattern: Int64(hasher.finalize()))
            count += 1
        }
    }

    /// Replaces the target table's rows (migrations may have seeded some) with the source's, many rows per
    /// statement; returns the source's checksum.
    static func copyTable(_ table: String, from s: any SQLSession, to t: any SQLSession,
                          report: inout Report) throws -> Checksum {
        let names = try TableCopy.columns(table, s)
        guard !names.isEmpty else { throw StratusError(.internalError, "the source has no table \(table)") }
        let missing = Set(names).subtracting(try TableCopy.columns(table, t))
        guard missing.isEmpty else { throw StratusError(.internalError,
                                                        "the target's \(table) table lacks \(missing.sorted().joined(separator: ", "))") }
        try TableCopy.clear(table, t)
        var sum = Checksum(columns: names)
        // Rows are read as the source streams and written as they come: the target is another database. PostgreSQL
        // moves them with COPY on either side (see `PostgresCopy`); SQLite reads a cursor and takes multi-row INSERTs.
        try TableCopy.writeRows(table, names, into: t) { add in try TableCopy.eachRow(of: table, names,
                in: s) { row in sum.add(row); try add(row) } }
        report.tables += 1
        report.rows += sum.count
        return sum
    }

    /// Checks each copied table against the source's checksum, reading the target afresh.
    static func verify(_ sums: [String: Checksum], in database: any SQLDatabase) throws {
        try database.read { t in
            for (table, expected) in sums.sorted(by: { $0.key < $1.key }) {
                let names = expected.columns
                var got = Checksum(columns: names)
                try TableCopy.eachRow(of: table, names, in: t) { got.add($0) }
                guard got == expected else {
                    throw StratusError(.internalError,
                                       "table \(table) differs after the copy: \(got.count) rows on the target, \(expected.count) in the source")
                }
            }
        }
    }

}
