import StratusHTTP

/// An error a signed-in page threw, with the request, session and scope it happened in, for the console group's
/// error owner (`Console.errors`) to draw the error page inside the console's header. It only carries the error:
/// nothing in a page turns an error into an answer.
struct PageFailure: Error {
    let error: any Error
    let request: HTTPRequest
    let session: Console.Session
    let scope: ConsoleScope?

    /// Runs `body`; what it throws comes out as a `PageFailure` with this context.
    static func within<T>(_ request: HTTPRequest, _ session: Console.Session, _ scope: ConsoleScope?,
                          _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw PageFailure(error: error, request: request, session: session,
                                                           scope: scope) }
    }
}
