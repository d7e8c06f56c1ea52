/// What tables whose rows a sign-in made share (`courier_tokens`, `apns_devices`: each row names its `user` and
/// the hash of the `web_token` it was made with), so that a sign-out ends them alike.
enum SignInBoundRows {
    /// Deletes `user`'s rows of `table` made with `webToken`, or all of theirs when it is nil.
    static func end(in table: StaticString, user: String, madeWith webToken: String?, _ s: any SQLSession) throws {
        if let webToken {
            try s.execute(#"DELETE FROM \#(table) WHERE "user" = ? AND web_token = ?"#, user, webToken)
        } else {
            try s.execute(#"DELETE FROM \#(table) WHERE "user" = ?"#, user)
        }
    }
}
