import Foundation
import StratusHTTP
import StratusModel
import StratusStore

extension CloudKitAPI {
    /// The users resource: who the caller is, and the identities it may discover.
    static let userOperations = [
        Operation(.usersCaller) { try $0.usersCaller($1, legacy: false) },
        Operation(.usersCurrent) { try $0.usersCaller($1, legacy: true) },
        Operation(.usersDiscover) { try $0.usersDiscover($1) },
        Operation(.usersLookupEmail) { try $0.usersLookup($1) },
        Operation(.usersLookupID) { try $0.usersLookup($1) },
        Operation(.usersLookupContacts) { try $0.usersLookupContacts($1) },
    ]

    /// `users/discover`: identities by email or user record name, for signed-in callers of the container. Only
    /// users who opted in to discoverability are found (the caller always finds itself), and only their names come
    /// back: the lookup info echoes what the caller sent, so an email appears only to whoever searched by it.
    ///
    /// Without `lookupInfos` it discovers all the identities the caller knows, as `discoverAllIdentities` asks: on
    /// iCloud those are the address book's people; here, the users who share with the caller, under the same rule
    /// (discoverable ones only), and without their email addresses.
    func usersDiscover(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        let me = try requireUser(ctx.auth, ctx.request, container: ctx.container, environment: ctx.environment)
        let finder = try UserFinder(self, ctx)
        let infos: [JSON]
        if let asked = try ctx.body.array("lookupInfos") {
            infos = asked
        } else {
            infos = try env(ctx).sharing.sharingPartners(of: me).map { JSON.object(["userRecordName": .string($0)]) }
        }
        guard infos.count <= 200 || ctx.body["lookupInfos"] == nil else { throw StratusError(.limitExceeded,
                "at most 200 lookupInfos per request") }
        let found = try infos.map { try finder.find($0) }
        return jsonList("users", zip(infos, found)) { item, w in
            let (info, user) = item
            guard let user else { return }
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
    }

    /// `users/lookup/contacts` (CloudKit JS 1.x's `discoverAllContactUserInfos`, deprecated): a server has no address
    /// book of the caller's to look people up in, so a signed-in caller is answered with no one, not a 404.
    func usersLookupContacts(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        _ = try requireUser(ctx.auth, ctx.request, container: ctx.container, environment: ctx.environment)
        return .json(Data(#"{"users":[]}"#.utf8))
    }

    /// `users/lookup/email` and `users/lookup/id` (CloudKit JS 1.x): User dictionaries or NOT_FOUND per item, under
    /// the same rule as `users/discover`. `emailAddress` is the address the caller searched by, never another's.
    func usersLookup(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        _ = try requireUser(ctx.auth, ctx.request, container: ctx.container, environment: ctx.environment)
        guard let items = try ctx.body.array("users") else { throw StratusError.badRequest("users/lookup needs users: [{emailAddress}] or [{userRecordName}]") }
        guard items.count <= 200 else { throw StratusError(.limitExceeded, "at most 200 users per request") }
        let finder = try UserFinder(self, ctx)
        let found = try items.map { try finder.find($0) }
        return jsonList("users", zip(items, found)) { pair, w in
            let (item, user) = pair
            guard let user else {
                WireEncoding().error(StratusError(.notFound, "no such user"), &w) { w in
                    if let e = item["emailAddress"]?.string { w.field("emailAddress", e) }
                    if let n = item["userRecordName"]?.string { w.field("userRecordName", n) }
                }
                return
            }
            w.beginObject()
            w.field("userRecordName", user.userRecordName)
            w.field("firstName", user.firstName)
            w.field("lastName", user.lastName)
            if let e = item["emailAddress"]?.string { w.field("emailAddress", e) }
            w.endObject()
        }
    }

    /// `users/caller` (`users/current` for CloudKit JS 1.x, `legacy`): who the request is from.
    func usersCaller(_ ctx: CloudKitRequest, legacy: Bool) throws -> HTTPResponse {
        let user = try requireUser(ctx.auth, ctx.request, container: ctx.container, environment: ctx.environment)
        // A server-to-server key's user is the developer who made it: no account, no name (as Apple answers a key).
        let profile = ctx.auth.serverToServer ? nil : try store.accounts.user(container: ctx.container,
                userRecordName: user)
        // Asking who one is makes one's public user record, as CloudKit has one for each user of the app (a full
        // store or a refused write does not stop the answer: the record is made on the next fetch instead).
        _ = try? env(ctx).records.userRecord(of: user, in: .publicDatabase)
        return json { w in
            w.beginObject()
            w.field("userRecordName", user)
            if legacy {
                w.field("firstName", profile?.firstName ?? "")
                w.field("lastName", profile?.lastName ?? "")
            } else {
                w.key("nameComponents")
                w.beginObject()
                if !ctx.auth.serverToServer {
                    w.field("givenName", profile?.firstName ?? "")
                    w.field("familyName", profile?.lastName ?? "")
                }
                w.endObject()
                w.key("lookupInfo")
                w.beginObject()
                w.field("userRecordName", user)
                w.endObject()
            }
            w.endObject()
        }
    }
}

/// Finds the users lookups name, under discoverability: a discoverable user, or the caller itself. The
/// Development test user, whom anyone can become, finds nobody else.
struct UserFinder {
    let store: ServerStore
    let container: ContainerID
    let caller: String?
    let callerIsTestUser: Bool

    init(_ api: CloudKitAPI, _ ctx: CloudKitRequest) throws(StratusError) {
        store = api.store
        container = ctx.container
        caller = ctx.auth.userRecordName
        let testEmail = AccountStore.testUserEmail(ctx.container)
        if let caller, let me = try api.store.accounts.user(container: ctx.container, userRecordName: caller) {
            callerIsTestUser = me.email.caseInsensitiveCompare(testEmail) == .orderedSame
        } else {
            callerIsTestUser = false
        }
    }

    func find(_ info: JSON) throws(StratusError) -> ContainerUser? {
        let found: ContainerUser?
        if let e = try info.string("emailAddress") {
            found = try store.accounts.user(container: container, email: e)
        } else if let n = try info.string("userRecordName") {
            found = try store.accounts.user(container: container, userRecordName: n)
        } else if try info.string("phoneNumber") != nil {
            // Apple's lookup info may carry a phone number; Stratus keeps none, so it finds no one (as an unknown
            // email).
            return nil
        } else {
            throw .badRequest("each lookup needs an emailAddress, a phoneNumber or a userRecordName")
        }
        guard let found else { return nil }
        if found.userRecordName == caller { return found }
        guard found.discoverable, !callerIsTestUser,
              found.email.caseInsensitiveCompare(AccountStore.testUserEmail(container)) != .orderedSame else { return nil }
        return found
    }
}
