import Foundation
import StratusHTTP
import StratusModel
import StratusStore

extension CloudKitAPI {
    /// `users/discover`: identities by email or user record name, for signed-in callers of the container. Only
    /// users who opted in to discoverability are found (the caller always finds itself), and only their names come
    /// back: the lookup info echoes what the caller sent, so an email appears only to whoever searched by it.
    func usersDiscover(_ ctx: Context) throws -> HTTPResponse {
        _ = try requireUser(ctx.auth, ctx.request, container: ctx.container, environment: ctx.environment)
        guard let infos = try ctx.body.array("lookupInfos") else { throw StratusError.badRequest("users/discover needs lookupInfos: [{emailAddress | userRecordName}]") }
        guard infos.count <= 200 else { throw StratusError.badRequest("at most 200 lookupInfos per request") }
        let found = try infos.map { try findUser($0, ctx) }
        return json { w in
            w.beginObject()
            w.key("users")
            w.beginArray()
            for (info, user) in zip(infos, found) {
                guard let user else { continue }
                w.beginObject()
                w.field("userRecordName", user.userRecordName)
                w.key("lookupInfo")
                w.beginObject()
                if let e = info["emailAddress"]?.string { w.field("emailAddress", e) }
                w.field("userRecordName", user.userRecordName)
                w.endObject()
                w.key("nameComponents")
                w.beginObject()
                w.field("givenName", user.firstName)
                w.field("familyName", user.lastName)
                w.endObject()
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
    }

    /// `users/lookup/email` and `users/lookup/id` (CloudKit JS 1.x): User dictionaries or NOT_FOUND per item, under
    /// the same rule as `users/discover`. `emailAddress` is the address the caller searched by, never another's.
    func usersLookup(_ ctx: Context) throws -> HTTPResponse {
        _ = try requireUser(ctx.auth, ctx.request, container: ctx.container, environment: ctx.environment)
        guard let items = try ctx.body.array("users") else { throw StratusError.badRequest("users/lookup needs users: [{emailAddress}] or [{userRecordName}]") }
        guard items.count <= 200 else { throw StratusError.badRequest("at most 200 users per request") }
        let found = try items.map { try findUser($0, ctx) }
        return json { w in
            w.beginObject()
            w.key("users")
            w.beginArray()
            for (item, user) in zip(items, found) {
                w.beginObject()
                if let user {
                    w.field("userRecordName", user.userRecordName)
                    w.field("firstName", user.firstName)
                    w.field("lastName", user.lastName)
                    if let e = item["emailAddress"]?.string { w.field("emailAddress", e) }
                } else {
                    if let e = item["emailAddress"]?.string { w.field("emailAddress", e) }
                    if let n = item["userRecordName"]?.string { w.field("userRecordName", n) }
                    w.field("reason", "no such user")
                    w.field("serverErrorCode", ErrorCode.notFound.rawValue)
                }
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
    }

    /// The user a lookup names, if the caller may find them: a discoverable user, or the caller itself. The
    /// Development test user, whom anyone can become, finds nobody else.
    private func findUser(_ info: JSON, _ ctx: Context) throws -> ContainerUser? {
        let found: ContainerUser?
        if let e = info["emailAddress"] {
            guard let e = e.string else { throw StratusError.badRequest("emailAddress must be a string") }
            found = try store.user(container: ctx.container, email: e)
        } else if let n = info["userRecordName"] {
            guard let n = n.string else { throw StratusError.badRequest("userRecordName must be a string") }
            found = try store.user(container: ctx.container, userRecordName: n)
        } else {
            throw StratusError.badRequest("each lookup needs an emailAddress or a userRecordName")
        }
        guard let found else { return nil }
        if found.userRecordName == ctx.auth.userRecordName { return found }
        guard found.discoverable, found.email.caseInsensitiveCompare(RecordStore.testUserEmail(ctx.container)) != .orderedSame else { return nil }
        if let me = ctx.auth.userRecordName, let caller = try store.user(container: ctx.container, userRecordName: me),
           caller.email.caseInsensitiveCompare(RecordStore.testUserEmail(ctx.container)) == .orderedSame {
            return nil
        }
        return found
    }
}
