/// What an acknowledged write survives. SQLite's WAL with `synchronous = FULL` syncs the log on every commit, so an
/// acknowledgement means "on disk": a power cut or an operating-system crash loses nothing acknowledged.
/// `relaxed` (`synchronous = NORMAL`) syncs only at checkpoints: a crash of the process still loses nothing, but
/// an operating-system crash or power cut can roll back the last acknowledged commits. For CI and laptops.
public enum Durability: String, Sendable, CaseIterable {
    case full, relaxed

    var synchronousPragma: String { self == .full ? "FULL" : "NORMAL" }
}
