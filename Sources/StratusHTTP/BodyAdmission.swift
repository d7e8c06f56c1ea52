/// What a route's admission check (`Route.Admission`) decides from a request's head, before its body is read.
public enum BodyAdmission: Sendable {
    /// Answer this and never read the body.
    case refused(HTTPResponse)
    /// Read the body, charged to this credential's share of the server's body budget (`BodyBudget`): an API token, a
    /// server-to-server key, a signed-in user, an admin session. One credential cannot hold the whole budget.
    case admitted(credential: String)
}
