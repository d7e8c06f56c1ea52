import Foundation
import StratusModel

/// The batches of an import file: NDJSON lines (or CSV rows of one type) decoded into record operations, up to
/// `size` consecutive records of one zone per batch. What `RecordImporter` writes; decoding is most of an import's
/// work besides the writing, so the importer runs this on a thread of its own.
struct RecordBatches {
    struct Entry {
        /// The line the record starts on (what an error names).
        var line: Int
        /// The line it ends on (what `--resume` starts after).
        var end: Int
        var op: RecordOperation
    }

    struct Batch {
        var zoneID: ZoneID
        var entries: [Entry]
        var lines: Int
        var bytesRead: Int64
    }

    private var reader: LineReader
    let skipLines: Int
    let zone: String?
    let mode: RecordImporter.Mode
    let size: Int
    let csvType: RecordTypeSchema?
    private var csv: RecordCSV?
    private var lineNumber = 0
    private var pending: Batch?
    private var finished = false

    init(handle: FileHandle, skipLines: Int, zone: String?, mode: RecordImporter.Mode, size: Int,
         csvType: RecordTypeSchema?) {
        reader = LineReader(handle: handle)
        self.skipLines = skipLines
        self.zone = zone
        self.mode = mode
        self.size = size
        self.csvType = csvType
    }

    var lines: Int { lineNumber }

    /// The next batch, nil at the end of the file.
    mutating func next() throws(RecordImporter.LineError) -> Batch? {
        while !finished {
            guard let (read, line) = try nextRecord() else {
                finished = true
                break
            }
            var record = read
            let zoneID = ZoneID(zoneName: zone ?? record.zoneID.zoneName)
            record.zoneID = zoneID
            let entry = Entry(line: line, end: lineNumber,
                              op: RecordOperation(mode == .create ? .create : .forceReplace, record))
            // Appended in place: a copy of the batch would copy its entries on every record.
            if pending?.zoneID == zoneID, let n = pending?.entries.count, n < size {
                pending!.entries.append(entry)
                pending!.lines = lineNumber
                pending!.bytesRead = reader.bytesRead
                continue
            }
            let full = pending
            pending = Batch(zoneID: zoneID, entries: [entry], lines: lineNumber, bytesRead: reader.bytesRead)
            if let full { return full }
        }
        defer { pending = nil }
        return pending
    }

    /// The next record and the line it starts on.
    private mutating func nextRecord() throws(RecordImporter.LineError) -> (StoredRecord, Int)? {
        var row: [UInt8] = [], rowLine = 0
        while true {
            let read: Data?
            do { read = try reader.next() } catch { throw RecordImporter.LineError(line: lineNumber + 1,
                    error: (error as? StratusError) ?? .badRequest("the file cannot be read")) }
            guard let line = read else { break }
            lineNumber += 1
            if let csvType {
                // The header is read even when resuming; a quoted cell may run on over several lines.
                if row.isEmpty { rowLine = lineNumber } else { row.append(0x0A) }
                row.append(contentsOf: line)
                guard row.count <= RecordImporter.maximumLineBytes else {
                    throw .init(line: rowLine,
                                error: .badRequest("the row is longer than \(RecordImporter.maximumLineBytes >> 20) MB"))
                }
                guard let cells = RecordCSV.cells(row) else { continue }
                row.removeAll(keepingCapacity: true)
                if cells == [""] { continue }
                guard let csv else {
                    do { csv = try RecordCSV(header: cells, type: csvType) } catch { throw .init(line: rowLine,
                            error: error) }
                    continue
                }
                if lineNumber <= skipLines { continue }
                do { return (try csv.record(cells), rowLine) } catch { throw .init(line: rowLine, error: error) }
            }
            if lineNumber <= skipLines { continue }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }   // blank lines (and CRLF ends)
            guard line.count <= RecordImporter.maximumLineBytes else {
                throw .init(line: lineNumber,
                            error: .badRequest("the line is longer than \(RecordImporter.maximumLineBytes >> 20) MB"))
            }
            do { return (try RecordLines.decode(line), lineNumber) } catch { throw .init(line: lineNumber,
                    error: error) }
        }
        if !row.isEmpty { throw .init(line: rowLine, error: .badRequest("the file ends inside a quoted cell")) }
        if csvType != nil && csv == nil { throw .init(line: 1, error: .badRequest("the file has no header line")) }
        return nil
    }
}
