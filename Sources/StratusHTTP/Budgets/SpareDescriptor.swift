import Glibc

/// A descriptor held back for the moment the process has none left. A listening socket with a connection waiting
/// stays readable, so an accept loop that cannot take it (EMFILE) wakes again at once and spins; this closes the
/// spare, takes the connection with it, answers and closes it, and opens the spare again (libev's and nginx's way).
final class SpareDescriptor: @unchecked Sendable {
    private var fd: Int32 = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)

    /// Sheds one waiting connection when the accept failed for want of descriptors; false if that was not why.
    func shed(listener: Int32, answer: [UInt8]) -> Bool {
        let reason = errno
        guard reason == EMFILE || reason == ENFILE, fd >= 0 else { return false }
        Glibc.close(fd)
        let client = Glibc.accept(listener, nil, nil)
        if client >= 0 { HTTPServer.refuse(client, answer) }
        fd = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        return client >= 0
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }
}
