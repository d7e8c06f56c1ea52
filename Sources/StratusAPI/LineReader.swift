import Foundation
import StratusModel

/// Lines of a file read in 1 MB chunks (constant memory whatever the file's size).
struct LineReader {
    let handle: FileHandle
    private var buffer = Data()
    private var start = 0
    private var done = false
    private(set) var bytesRead: Int64 = 0

    init(handle: FileHandle) { self.handle = handle }

    mutating func next() throws -> Data? {
        while true {
            if let nl = buffer[start...].firstIndex(of: 0x0A) {
                let line = buffer[start..<nl]
                start = nl + 1
                return Data(line)
            }
            if done {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return Data(line)
            }
            guard buffer.count - start <= RecordImporter.maximumLineBytes else {
                throw StratusError.badRequest("a line is longer than \(RecordImporter.maximumLineBytes >> 20) MB")
            }
            buffer = Data(buffer[start...])
            start = 0
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            bytesRead += Int64(chunk.count)
            if chunk.isEmpty { done = true } else { buffer.append(chunk) }
        }
    }
}
