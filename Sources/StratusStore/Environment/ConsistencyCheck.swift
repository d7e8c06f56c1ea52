import Foundation
import StratusModel
import StratusPostgres

/// `stratus check` for one environment: the engine's own check of its files or indexes, then the invariants Stratus
/// keeps between its tables — each type's record counts, the change log against the records, and each asset's
/// reference count against the record values that name it. It reads only; what it finds is for an operator.
public struct ConsistencyCheck: EnvironmentPart {
    let core: EnvironmentDatabase

    /// What a check found: `problems` (empty when everything holds) and `notes` (what could not be checked, and why).
    public struct Report: Sendable {
        public var problems: [String] = []
        public var notes: [String] = []
    }

    public func run() throws(StratusError) -> Report {
        var report = Report()
        try engine(&report)
        try read { s, catalog in
            for type in catalog.types {
                try counts(type, s, &report)
                try changeLog(type, s, &report)
            }
            let known = Set(catalog.types.map(\.id))
            let orphans = try RecordLog.liveTypeIDs(s).filter { !known.contains($0) }
            for id in orphans { report.problems.append("the change log lists live records of a record type that no longer exists (type id \(id))") }
            try assets(catalog, s, &report)
            try counters(s, &report)
        }
        return report
    }

    /// Every change a database's zones hold is numbered at or below its counter (or, for a database that has not
    /// written since counters became per database, the environment's old counter): a counter behind its changes
    /// would hand out a number twice, and a token could then skip a change. One statement, so one moment.
    private func counters(_ s: any SQLSession, _ report: inout Report) throws {
        let floor = try ChangeSequence.floor(s)
        for (scope, owner, highest, counter) in try ChangeSequence.standing(s) where highest > (counter ?? floor) {
            report.problems.append("the \(scope) database of \(owner.prefix(64)) holds change \(highest), past its change counter (\(counter ?? floor))")
        }
    }

    /// SQLite's integrity check of the environment's file; on PostgreSQL, `amcheck` on every B-tree index of the
    /// environment's schema where the extension is installed (installing it is the operator's choice).
    private func engine(_ report: inout Report) throws(StratusError) {
        if sqlite != nil {
            let result = try core.integrityCheck()
            if result != "ok" { report.problems.append("SQLite's integrity check: \(result.prefix(2_000))") }
            return
        }
        guard let schema = postgresSchema else { return }
        try read { s, _ in try EngineCheck.postgres(s, schema: schema, into: &report) }
    }

    /// The writer's per-zone counters (`record_counts`, which the console and quotas read) against the rows.
    private func counts(_ type: CatalogType, _ s: any SQLSession, _ report: inout Report) throws {
        let held = Dictionary(try TypeStatements.countsByZone(type, s), uniquingKeysWith: +)
        let kept = Dictionary(try RecordCounts.byZone(s, type: type.id), uniquingKeysWith: +)
        for zone in Set(held.keys).union(kept.keys).sorted() where held[zone, default: 0] != kept[zone, default: 0] {
            report.problems.append("record type \(type.name), zone id \(zone): counted \(kept[zone, default: 0]) records, holds \(held[zone, default: 0])")
        }
    }

    /// Every record has its live entry in the change log (sync would never hand it out), and every live entry its
    /// record (sync would hand out one that is not there).
    private func changeLog(_ type: CatalogType, _ s: any SQLSession, _ report: inout Report) throws {
        let unlogged = try RecordLog.unlogged(type, s)
        if unlogged > 0 { report.problems.append("record type \(type.name): \(unlogged) records have no live entry in the change log") }
        let missing = try RecordLog.dangling(type, s)
        if missing > 0 { report.problems.append("record type \(type.name): the change log lists \(missing) live records that are not there") }
    }

    /// Each asset's reference count against the record values that name it (lists included), and a name without
    /// its asset.
    private func assets(_ catalog: Catalog, _ s: any SQLSession, _ report: inout Report) throws {
        var named: [String: Int64] = [:]
        for type in catalog.types {
            for f in type.fields where f.type.scalar == .asset {
                for value in try TypeStatements.storedValues(of: f, table: type.table, s) {
                    for checksum in try FieldValueCodec.decode(value).assetChecksums { named[checksum,
                            default: 0] += 1 }
                }
            }
        }
        let stored = try AssetRows.references(s)
        for (checksum, refs) in stored.sorted(by: { $0.key < $1.key }) where refs != named[checksum, default: 0] {
            report.problems.append("asset \(checksum): reference count \(refs), named by \(named[checksum, default: 0]) record values")
        }
        for checksum in named.keys.sorted() where stored[checksum] == nil {
            report.problems.append("asset \(checksum) is named by \(named[checksum]!) record values but is not stored")
        }
        // Content no record uses and no upload waits to attach, past an upload's life: the server's next collection
        // removes it (a server that is not running leaves it, and it counts against the quota meanwhile).
        let cutoff = WallClock.nowMillis() - AssetUploads.lifetime
        let orphans = try AssetRows.orphans(before: cutoff, s)
        if orphans.0 > 0 {
            report.problems.append("\(orphans.0) assets (\(orphans.1) bytes) are used by no record and waited for by no upload: collected by a running server within a minute")
        }
        let expired = try AssetUploads.expired(at: WallClock.nowMillis(), s)
        if expired.0 > 0 {
            report.problems.append("\(expired.0) uploads (\(expired.1) bytes) were never attached to a record and have expired: still charged to their uploaders until a running server drops them")
        }
    }
}
