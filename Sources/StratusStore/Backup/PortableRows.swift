import Crypto
import Foundation
import StratusModel

/// A table's rows in a portable backup (`*.rows`): each value as a tag byte and its bytes, the same from either
/// engine and read back into either — 0 NULL, 1 an integer (8 bytes), 2 a double (its 8 bytes), 3 text and 4 a
/// blob (a 4-byte length, then the bytes); little-endian. The manifest names the columns and counts the rows; the
/// writer hashes what it writes, so sealing the backup reads nothing again.
enum PortableRows {
    /// Writes rows into a new file, buffered, hashing the bytes as they go.
    struct Writer {
        private let handle: FileHandle
        private var buffer: [UInt8] = []
        private var hasher = SHA256()
        private(set) var bytes: Int64 = 0
        private(set) var rows: Int64 = 0

        init(_ url: URL) throws {
            try PrivateFiles.directory(url.deletingLastPathComponent())
            guard FileManager.default.createFile(atPath: url.path,
                                                 contents: nil) else { throw StratusError(.internalError,
                    "cannot create \(url.path)") }
            handle = try FileHandle(forWritingTo: url)
            buffer.reserveCapacity(Self.chunk + 65_536)
        }

        static let chunk = 1 << 20

        mutating func add(_ row: [SQLValue]) throws {
            for v in row {
                switch v {
                case .null: buffer.append(0)
                case .int64(let i): buffer.append(1); withUnsafeBytes(of: i.littleEndian) { buffer.append(contentsOf: $0) }
                case .double(let d): buffer.append(2); withUnsafeBytes(of: d.bitPattern.littleEndian) { buffer.append(contentsOf: $0) }
                case .text(let s): buffer.append(3); length(s.utf8.count); buffer.append(contentsOf: s.utf8)
                case .blob(let b): buffer.append(4); length(b.count); buffer.append(contentsOf: b)
                }
            }
            rows += 1
            if buffer.count >= Self.chunk { try flush() }
        }

        private mutating func length(_ n: Int) { withUnsafeBytes(of: UInt32(n).littleEndian) { buffer.append(contentsOf: $0) } }

        private mutating func flush() throws {
            guard !buffer.isEmpty else { return }
            hasher.update(data: buffer)
            try handle.write(contentsOf: buffer)
            bytes += Int64(buffer.count)
            buffer.removeAll(keepingCapacity: true)
        }

        /// Writes what is buffered, syncs and closes the file; its size and SHA-256 for the manifest.
        mutating func finish() throws -> (bytes: Int64, sha256: String) {
            try flush()
            try handle.synchronize()
            try handle.close()
            return (bytes, hasher.finalize().map { String(format: "%02x", $0) }.joined())
        }
    }

    /// Reads a rows file of `columns` columns, row by row; a damaged file (a bad tag, a value past its end) is an
    /// error, never a crash.
    static func read(_ url: URL, columns: Int, _ row: ([SQLValue]) throws -> Void) throws -> Int64 {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var carry: [UInt8] = []
        var rows: Int64 = 0
        var values: [SQLValue] = []
        values.reserveCapacity(columns)
        func damaged() -> StratusError { StratusError.badRequest("\(url.lastPathComponent) is damaged (a value past its end or of no known kind)") }
        while true {
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty {
                guard carry.isEmpty else { throw damaged() }
                return rows
            }
            carry.append(contentsOf: chunk)
            let used: Int = try carry.withUnsafeBytes { b in
                var at = 0
                rows: while at < b.count {
                    var p = at
                    values.removeAll(keepingCapacity: true)
                    for _ in 0..<columns {
                        guard p < b.count else { break rows }
                        let tag = b[p]
                        p += 1
                        switch tag {
                        case 0: values.append(.null)
                        case 1, 2:
                            guard p + 8 <= b.count else { break rows }
                            let raw = b.loadUnaligned(fromByteOffset: p, as: UInt64.self).littleEndian
                            values.append(tag == 1 ? .int64(Int64(bitPattern: raw)) : .double(Double(bitPattern: raw)))
                            p += 8
                        case 3, 4:
                            guard p + 4 <= b.count else { break rows }
                            let n = Int(b.loadUnaligned(fromByteOffset: p, as: UInt32.self).littleEndian)
                            guard p + 4 + n <= b.count else {
                                // A length no chunk can complete is damage, not a short read.
                                if n > Int(Int32.max) { throw damaged() }
                                break rows
                            }
                            let bytes = UnsafeRawBufferPointer(rebasing: b[(p + 4)..<(p + 4 + n)])
                            values.append(tag == 3 ? .text(String(decoding: bytes, as: UTF8.self)) : .blob(Data(bytes)))
                            p += 4 + n
                        default: throw damaged()
                        }
                    }
                    try row(values)
                    rows += 1
                    at = p
                }
                return at
            }
            carry.removeFirst(used)
        }
    }
}
