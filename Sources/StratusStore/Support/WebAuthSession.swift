/// What a web auth token stands for: its user and when it stops working.
struct WebAuthSession: Sendable {
    var user: String
    var expiresAt: Int64
}
