import Foundation
import StratusModel
import StratusStore

/// Loads NDJSON record lines (`RecordLines`) into a database in batches: up to 200 consecutive lines of one zone
/// per batch, each batch all or nothing (in the default zone too). A line that is not a record, or that the store
/// refuses, stops the import with its line number and CloudKit error; nothing of its batch is written, every
/// batch before it is, and `committed` has been told the last line they hold (what `--resume` starts after).
public struct RecordImporter {
    public enum Mode: String, Sendable, CaseIterable {
        /// A line whose record exists already is refused (CONFLICT).
        case create
        /// A line replaces the record of its name, or creates it.
        case upsert
    }

    /// A line the import stopped at.
    public struct LineError: Error, Sendable {
        public var line: Int
        public var error: StratusError
    }

    public struct Progress: Sendable {
        public var lines: Int
        public var records: Int
        public var bytesRead: Int64
        public var totalBytes: Int64
        public var seconds: Double
        public var recordsPerSecond: Double { seconds > 0 ? Double(records) / seconds : 0 }
        /// Seconds left at the current rate, from the share of the file read.
        public var secondsLeft: Double? {
            guard bytesRead > 0, totalBytes > bytesRead, seconds > 0 else { return nil }
            return seconds * Double(totalBytes - bytesRead) / Double(bytesRead)
        }
    }

    /// The longest line read (a record of 1,000 fields fits many times over).
    public static let maximumLineBytes = 16 << 20

    let env: EnvironmentStore
    let database: DatabaseID
    /// Every record into this zone instead of its line's.
    let zone: String?
    let mode: Mode
    let batchSize: Int
    /// Read CSV rows of this type (a header line, then a record per row) instead of NDJSON lines.
    let csvType: RecordTypeSchema?

    public init(env: EnvironmentStore, database: DatabaseID, zone: String? = nil, mode: Mode = .create, batchSize: Int = 200, csvType: RecordTypeSchema? = nil) {
        self.env = env
        self.csvType = csvType
        self.database = database
        self.zone = zone
        self.mode = mode
        self.batchSize = max(1, min(batchSize, RecordOperation.maximumPerBatch))
    }

    /// Imports the lines of `file` after the first `skipLines`; returns the records written.
    @discardableResult
    public func run(_ file: URL, skipLines: Int = 0, committed: (Int) throws -> Void = { _ in },
                    progress: (Progress) -> Void = { _ in }) throws -> Int {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: file) } catch { throw StratusError.badRequest("cannot read \(file.path)") }
        defer { try? handle.close() }
        let total = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
        let started = ContinuousClock.now
        var reader = LineReader(handle: handle)
        var lineNumber = 0, written = 0
        var batch: [(line: Int, end: Int, op: RecordOperation)] = []
        var batchZone: ZoneID?
        var knownZones: Set<String> = [ZoneID.defaultZoneName]
        let actor = database.scope == .public ? Actor.system : Actor(userRecordName: database.ownerRecordName)
        var lastReport = ContinuousClock.now

        func flush() throws {
            guard let zoneID = batchZone, !batch.isEmpty else { return }
            if !knownZones.contains(zoneID.zoneName) && database.scope == .private {
                if (try? env.lookupZone(zoneID, in: database)) == nil { _ = try env.createZone(zoneID, in: database) }
                knownZones.insert(zoneID.zoneName)
            }
            let results: [ModifyResult]
            // A refusal of the whole batch (a zone the database cannot have, say) is reported at its first line.
            do { results = try env.modify(batch.map(\.op), in: database, zoneID: zoneID, allOrNothing: true, actor: actor) } catch {
                throw LineError(line: batch[0].line, error: error)
            }
            if let i = results.firstIndex(where: { $0.error != nil && $0.error?.code != .atomicError }) ?? results.firstIndex(where: { $0.error != nil }) {
                throw LineError(line: batch[i].line, error: results[i].error!)
            }
            written += batch.count
            try committed(batch.last!.end)
            batch.removeAll(keepingCapacity: true)
        }

        func add(_ record: inout StoredRecord, line: Int) throws {
            let zoneID = ZoneID(zoneName: zone ?? record.zoneID.zoneName)
            record.zoneID = zoneID
            if batchZone != zoneID || batch.count == batchSize { try flush(); batchZone = zoneID }
            batch.append((line, lineNumber, RecordOperation(mode == .create ? .create : .forceReplace, record)))
            if ContinuousClock.now - lastReport > .milliseconds(200) {
                lastReport = ContinuousClock.now
                progress(Progress(lines: lineNumber, records: written, bytesRead: reader.bytesRead, totalBytes: total, seconds: (ContinuousClock.now - started).seconds))
            }
        }

        var csv: RecordCSV?
        var row: [UInt8] = [], rowLine = 0
        while let line = try reader.next() {
            lineNumber += 1
            if let csvType {
                // The header is read even when resuming; a quoted cell may run on over several lines.
                if row.isEmpty { rowLine = lineNumber } else { row.append(0x0A) }
                row.append(contentsOf: line)
                guard row.count <= Self.maximumLineBytes else { throw LineError(line: rowLine, error: .badRequest("the row is longer than \(Self.maximumLineBytes >> 20) MB")) }
                guard let cells = RecordCSV.cells(row) else { continue }
                defer { row.removeAll(keepingCapacity: true) }
                if cells == [""] { continue }
                if csv == nil {
                    do { csv = try RecordCSV(header: cells, type: csvType) } catch { throw LineError(line: rowLine, error: error) }
                    continue
                }
                if lineNumber <= skipLines { continue }
                var record: StoredRecord
                do { record = try csv!.record(cells) } catch { throw LineError(line: rowLine, error: error) }
                try add(&record, line: rowLine)
                continue
            }
            if lineNumber <= skipLines { continue }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }   // blank lines (and CRLF ends)
            guard line.count <= Self.maximumLineBytes else { throw LineError(line: lineNumber, error: .badRequest("the line is longer than \(Self.maximumLineBytes >> 20) MB")) }
            var record: StoredRecord
            do { record = try RecordLines.decode(line) } catch { throw LineError(line: lineNumber, error: error) }
            try add(&record, line: lineNumber)
        }
        if !row.isEmpty { throw LineError(line: rowLine, error: .badRequest("the file ends inside a quoted cell")) }
        if csvType != nil && csv == nil { throw LineError(line: 1, error: .badRequest("the file has no header line")) }
        try flush()
        progress(Progress(lines: lineNumber, records: written, bytesRead: total, totalBytes: total, seconds: (ContinuousClock.now - started).seconds))
        return written
    }
}
