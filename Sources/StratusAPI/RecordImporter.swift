import Foundation
import StratusModel
import StratusStore

/// Loads NDJSON record lines (`RecordLines`) into a database in batches: up to 2,000 consecutive lines of one zone
/// per batch, each batch all or nothing (in the default zone too). A line that is not a record, or that the store
/// refuses, stops the import with its line number and CloudKit error; nothing of its batch is written, every
/// batch before it is, and `committed` has been told the last line they hold (what `--resume` starts after).
public struct RecordImporter: Sendable {
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

        public init(line: Int, error: StratusError) {
            self.line = line
            self.error = error
        }
    }

    public struct Progress: Sendable {
        public var lines, records: Int
        public var bytesRead, totalBytes: Int64
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

    public init(env: EnvironmentStore, database: DatabaseID, zone: String? = nil, mode: Mode = .create,
                batchSize: Int = 2_000, csvType: RecordTypeSchema? = nil) {
        self.env = env
        self.csvType = csvType
        self.database = database
        self.zone = zone
        self.mode = mode
        self.batchSize = max(1, min(batchSize, RecordOperation.maximumPerImportBatch))
    }

    /// Imports the lines of `file` after the first `skipLines`; returns the records written. The file is read and
    /// decoded on a thread of its own, a batch or two ahead of the writing.
    @discardableResult
    public func run(_ file: URL, skipLines: Int = 0, committed: (Int) throws -> Void = { _ in },
                    progress: (Progress) -> Void = { _ in }) throws -> Int {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: file) } catch { throw StratusError.badRequest("cannot read \(file.path)") }
        defer { try? handle.close() }
        let total = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
        let started = ContinuousClock.now
        var written = 0, lines = 0
        var knownZones: Set<String> = [ZoneID.defaultZoneName]
        let actor = database.scope == .public ? RequestActor.system : RequestActor(userRecordName: database.ownerRecordName)
        var lastReport = ContinuousClock.now

        let channel = BatchChannel()
        let producer = Thread { [batchSize, zone, mode, csvType] in
            defer { channel.finished() }
            var batches = RecordBatches(handle: handle, skipLines: skipLines, zone: zone, mode: mode, size: batchSize,
                                        csvType: csvType)
            do {
                while let b = try batches.next() { guard channel.put(.batch(b)) else { return } }
                _ = channel.put(.end(lines: batches.lines))
            } catch {
                _ = channel.put(.failed(error))
            }
        }
        producer.start()
        // However the import ends, the reading thread is stopped and gone before the file is closed.
        defer { channel.cancel() }

        // Types that were empty when the import first met them get their indexes built after the load (see
        // `EnvironmentStore.deferIndexes`); built on the way out, whether the import ends or stops at a bad line.
        let deferral = Deferral()
        defer { if deferral.active { try? env.records.buildDeferredIndexes() } }
        func deferIndexes() throws {
            for name in deferral.pending where try env.records.deferIndexes(of: name) {
                deferral.pending.remove(name)
                deferral.active = true
            }
        }

        reading: while true {
            switch channel.take() {
            case .failed(let e): throw e
            case .end(let n):
                lines = n
                break reading
            case .batch(let batch):
                let zoneID = batch.zoneID
                for e in batch.entries where deferral.seen.insert(e.op.record.recordType).inserted {
                    if try env.records.typeIsEmpty(e.op.record.recordType) { deferral.pending.insert(e.op.record.recordType) }
                }
                try deferIndexes()
                if !knownZones.contains(zoneID.zoneName) && database.scope == .private {
                    if (try? env.zones.lookupZone(zoneID, in: database)) == nil { _ = try env.zones.createZone(zoneID,
                            in: database) }
                    knownZones.insert(zoneID.zoneName)
                }
                let results: [ModifyResult]
                // A refusal of the whole batch (a zone the database cannot have, say) is reported at its first line.
                do { results = try env.records.modify(batch.entries.map { $0.op }, in: database, zoneID: zoneID,
                                                      allOrNothing: true, actor: actor) } catch {
                    throw LineError(line: batch.entries[0].line, error: error)
                }
                if let i = results.firstIndex(where: { $0.error != nil && $0.error?.code != .atomicError }) ?? results.firstIndex(where: { $0.error != nil }) {
                    throw LineError(line: batch.entries[i].line, error: results[i].error!)
                }
                written += batch.entries.count
                try deferIndexes()   // a type the batch created
                try committed(batch.entries.last!.end)
                if ContinuousClock.now - lastReport > .milliseconds(200) {
                    lastReport = ContinuousClock.now
                    progress(Progress(lines: batch.lines, records: written, bytesRead: batch.bytesRead,
                                      totalBytes: total, seconds: (ContinuousClock.now - started).seconds))
                }
            }
        }
        if deferral.active {
            deferral.active = false
            try env.records.buildDeferredIndexes()
        }
        progress(Progress(lines: lines, records: written, bytesRead: total, totalBytes: total,
                          seconds: (ContinuousClock.now - started).seconds))
        // An import churns through its records on two threads; what they freed goes back (a server that imported
        // a million records held some 70 MB more for good).
        FreedMemory.release()
        return written
    }

    /// The record types of one run whose indexes wait for the end of the load.
    final class Deferral {
        var seen: Set<String> = []
        var pending: Set<String> = []
        var active = false
    }
}
