import Foundation
import StratusAPI
import StratusModel
import Synchronization

/// The console's imports under way and recently finished, in memory: an upload is imported in the background
/// and its page follows the progress. The last `kept` jobs are kept (a restart forgets them; the audit log keeps
/// what each import did).
final class ImportJobs: Sendable {
    struct Job: Sendable {
        enum State: Sendable {
            case running
            case done(records: Int)
            case failed(line: Int, code: String, reason: String)
        }
        var id: String
        var container: ContainerID
        var environment: ContainerEnvironment
        var filename: String
        var started: Date
        var state: State = .running
        var progress: RecordImporter.Progress?
        /// The last line of the last batch written (what is imported if it stops).
        var committed = 0
        var seconds: Double = 0
    }

    static let kept = 20
    /// Imports running at once, server-wide: each holds a thread, a temporary file and an environment's writer in
    /// turns, so a crowd of them would hold everyone's.
    static let running = 4
    private let jobs = Mutex<[Job]>([])

    /// Starts tracking `job`; refused (nothing kept) while `running` imports are under way.
    func start(_ job: Job) throws(StratusError) {
        try jobs.withLock { (j: inout [Job]) throws(StratusError) in
            let busy = j.filter { if case .running = $0.state { true } else { false } }.count
            guard busy < Self.running else {
                throw StratusError(.tryAgainLater,
                                   "\(busy) imports are running on this server: start this one when one of them has finished", retryAfter: 30)
            }
            j.append(job)
            if j.count > Self.kept, let i = j.firstIndex(where: { if case .running = $0.state { false } else { true } }) { j.remove(at: i) }
        }
    }

    func update(_ id: String, _ change: (inout Job) -> Void) {
        jobs.withLock { j in if let i = j.firstIndex(where: { $0.id == id }) { change(&j[i]) } }
    }

    func job(_ id: String) -> Job? { jobs.withLock { $0.first { $0.id == id } } }
}
