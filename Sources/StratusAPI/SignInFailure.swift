import StratusHTTP

/// An attempt a sign-in page refused (a wrong password, a busy server, a storage failure), with the form it came
/// from, for the CloudKit group's error owner (`CloudKitAPI.errors`, which asks `SignInPages.errors`) to draw that form
/// again with what went wrong —
/// or, for a program that asked for JSON, CloudKit's envelope. Nothing in a page turns an error into an answer.
struct SignInFailure: Error {
    let error: any Error
    let reply: SignInPages.Reply

    /// Runs `body`; what it throws comes out as a `SignInFailure` of this form.
    static func within<T: Sendable>(_ reply: SignInPages.Reply, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw SignInFailure(error: error, reply: reply) }
    }
}
