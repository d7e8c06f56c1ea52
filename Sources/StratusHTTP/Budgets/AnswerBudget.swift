import Foundation
import Synchronization

/// What answers hold while they wait to be sent: memory, across every connection, and the spool files a large
/// answer goes to past its first megabyte (see `AnswerSpool`). A page of 200 records of a megabyte each is 190 MB;
/// built whole in memory, eight of them took the server's memory, and a client that never read held its page. An
/// answer now keeps at most `memoryPerAnswer` in memory, and only while the memory of all answers together stays
/// under `memoryLimit`; the rest waits on disk, at most `spoolLimit` in all and a quarter of it for one credential
/// (503 with Retry-After past it, before another byte is written), and the client that stops reading is let go (see
/// `HTTPServerConfig.bodyMinimumRate`).
public final class AnswerBudget: Sendable {
    public let memoryLimit, memoryPerAnswer, spoolLimit, spoolPerCredential: Int
    /// Where spool files are made (each is unlinked as soon as it is opened, readable by this process alone).
    public let directory: String
    private struct State {
        var memory = 0
        var spooled = 0
        var spooledBy: [String: Int] = [:]
        var refused = 0
    }
    private let state = Mutex(State())

    public init(memoryLimit: Int = 256 << 20, memoryPerAnswer: Int = 1 << 20, spoolLimit: Int = 8 << 30,
                spoolPerCredential: Int? = nil, directory: String = NSTemporaryDirectory()) {
        self.memoryLimit = memoryLimit
        self.memoryPerAnswer = memoryPerAnswer
        self.spoolLimit = spoolLimit
        self.spoolPerCredential = spoolPerCredential ?? spoolLimit / 4
        self.directory = directory
    }

    /// For requests made without a server (tests, tools): the defaults.
    public static let standalone = AnswerBudget()

    /// Takes up to `bytes` of memory for an answer; returns what it got (0 when memory is spoken for).
    func takeMemory(_ bytes: Int) -> Int {
        state.withLock { s in
            let granted = min(max(0, bytes), max(0, memoryLimit - s.memory))
            s.memory += granted
            return granted
        }
    }

    func giveMemory(_ bytes: Int) { if bytes > 0 { state.withLock { $0.memory -= bytes } } }

    /// Takes `bytes` of spool for `credential`; false, and nothing taken, past the whole's or the credential's share.
    func takeSpool(_ bytes: Int, for credential: String) -> Bool {
        state.withLock { s in
            let mine = s.spooledBy[credential, default: 0]
            guard bytes <= spoolLimit - s.spooled, bytes <= spoolPerCredential - mine else {
                s.refused += 1
                return false
            }
            s.spooled += bytes
            s.spooledBy[credential] = mine + bytes
            return true
        }
    }

    func giveSpool(_ bytes: Int, for credential: String) {
        guard bytes > 0 else { return }
        state.withLock { s in
            s.spooled -= bytes
            let left = s.spooledBy[credential, default: 0] - bytes
            s.spooledBy[credential] = left > 0 ? left : nil
        }
    }

    /// Answer bytes held in memory and on disk now, and answers refused for want of spool since the start.
    public var figures: (memory: Int, spooled: Int, refused: Int) { state.withLock { ($0.memory, $0.spooled,
            $0.refused) } }
}
