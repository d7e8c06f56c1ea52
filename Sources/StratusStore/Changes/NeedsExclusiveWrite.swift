/// Thrown inside a database-scoped write (`EnvironmentDatabase.write(in:)`) that finds it must change the whole
/// environment — a Development write adding a record type or field — which concurrent writes to other databases
/// must not see half done: the write runs again holding the environment's write lock alone. (SQLite's one writer
/// never needs it: `SequenceAllocator.wholeEnvironment` is always true there.)
struct NeedsExclusiveWrite: Error {}
