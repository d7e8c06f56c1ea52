import Foundation
import StratusModel

/// Lines of a file read in 1 MB chunks (constant memory whatever the file's size); the line ends are found with
/// `memchr`, which matters when the lines are most of an import's input.
struct LineReader {
    let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var done = false
    private(set) var bytesRead: Int64 = 0

    init(handle: FileHandle) { self.handle = handle }

    mutating func next() throws -> Data? {
        while true {
            let from = start
            let nl: Int? = buffer.withUnsafeBufferPointer { b in
                guard from < b.count, let base = b.baseAddress, let p = memchr(base + from, 0x0A,
                        b.count - from) else { return nil }
                return base.distance(to: p.assumingMemoryBound(to: UInt8.self))
            }
            if let nl {
                start = nl + 1
                return Data(buffer[from..<nl])
            }
            if done {
                guard start < buffer.count else { return nil }
                start = buffer.count
                return Data(buffer[from...])
            }
            guard buffer.count - start <= RecordImporter.maximumLineBytes else {
                throw StratusError.badRequest("a line is longer than \(RecordImporter.maximumLineBytes >> 20) MB")
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            bytesRead += Int64(chunk.count)
            if chunk.isEmpty { done = true } else { buffer.append(contentsOf: chunk) }
        }
    }
}
