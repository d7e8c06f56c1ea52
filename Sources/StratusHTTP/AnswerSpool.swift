import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A large answer's body, written as it is produced: its first bytes in memory (as much as `AnswerBudget` grants,
/// at most `memoryPerAnswer`), the rest in a spool file nobody else can open, sent from there by the connection at
/// the pace the client reads. What it holds is given back when it is sent or dropped. The producer (a query writing
/// its page of records) finishes at once and lets go of the database, however slowly the client reads.
public final class AnswerSpool: @unchecked Sendable {
    let budget: AnswerBudget
    /// Who the spool is charged to: the request's credential, or its client address.
    let credential: String
    private var memory: [UInt8] = []
    private var memoryGranted = 0
    private var file: Int32 = -1
    private var fileBytes = 0
    private var closed = false

    public init(budget: AnswerBudget, credential: String) {
        self.budget = budget
        self.credential = credential
    }

    /// The answer's length so far.
    public var count: Int { memory.count + fileBytes }
    /// Whether any of it is on disk (a small answer stays in memory, and is sent and compressed like any other).
    public var spilled: Bool { file >= 0 }

    /// Adds bytes to the answer; throws (503, Retry-After) when the spool has no room for them.
    public func append(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPError) {
        guard !bytes.isEmpty, !closed else { return }
        var rest = bytes
        if file < 0 {
            // Memory first, as much as the whole budget grants; once a byte goes to the file, the rest follows it.
            let granted = budget.takeMemory(min(budget.memoryPerAnswer - memory.count, rest.count))
            if granted > 0 {
                memoryGranted += granted
                memory.append(contentsOf: UnsafeBufferPointer(rebasing: rest[..<granted]))
                rest = UnsafeBufferPointer(rebasing: rest[granted...])
            }
            if rest.isEmpty { return }
            try openFile()
        }
        guard budget.takeSpool(rest.count, for: credential) else {
            throw HTTPError(.serviceUnavailable,
                            "the server holds too many large answers waiting to be read: retry shortly", retryAfter: 5)
        }
        fileBytes += rest.count
        var offset = 0
        while offset < rest.count {
            let n = Glibc.write(file, rest.baseAddress! + offset, rest.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw HTTPError(.serviceUnavailable,
                                               "the server could not hold this answer (its disk is full): retry later",
                    retryAfter: 30) }
            offset += n
        }
    }

    public func append(_ bytes: [UInt8]) throws(HTTPError) {
        try bytes.withUnsafeBufferPointer { (b: UnsafeBufferPointer<UInt8>) throws(HTTPError) in try append(b) }
    }

    private func openFile() throws(HTTPError) {
        var template = Array((budget.directory.hasSuffix("/") ? budget.directory : budget.directory + "/").utf8CString.dropLast())
        template += Array("stratus-answer-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw HTTPError(.serviceUnavailable, "the server could not hold this answer: retry later",
                                             retryAfter: 30) }
        // Unlinked at once: the bytes live as long as the descriptor, and no other process finds them.
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        file = fd
    }

    /// Up to `count` bytes from `offset` (memory first, then the file); empty at the end.
    func read(at offset: Int, count: Int) -> [UInt8] {
        if offset < memory.count { return Array(memory[offset..<min(memory.count, offset + count)]) }
        let fileOffset = offset - memory.count
        let n = min(count, fileBytes - fileOffset)
        guard n > 0, file >= 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: n) { buffer, got in
            var done = 0
            while done < n {
                let r = pread(file, buffer.baseAddress! + done, n - done, off_t(fileOffset + done))
                if r < 0 && errno == EINTR { continue }
                guard r > 0 else { break }
                done += r
            }
            got = done
        }
    }

    /// The whole answer in memory (an answer that did not spill).
    var memoryBytes: [UInt8] { memory }

    /// Gives back what the answer holds; it is empty afterwards.
    public func close() {
        guard !closed else { return }
        closed = true
        budget.giveMemory(memoryGranted)
        budget.giveSpool(fileBytes, for: credential)
        memory = []
        memoryGranted = 0
        if file >= 0 { Glibc.close(file) }
        file = -1
        fileBytes = 0
    }

    deinit { close() }
}
