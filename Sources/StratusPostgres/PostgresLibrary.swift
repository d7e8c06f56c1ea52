import CLibPQ

/// libpq, opened when a PostgreSQL URL is first used (see CLibPQ): a machine without it runs everything else.
public enum PostgresLibrary {
    /// Opens libpq once; every call after a failure fails the same way, with one line naming the package to install.
    public static func load() throws(PostgresError) {
        var buffer = [CChar](repeating: 0, count: 512)
        guard stratus_libpq_load(&buffer, buffer.count) != 0 else { return }
        let message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw PostgresError(.missingLibrary, message)
    }
}
