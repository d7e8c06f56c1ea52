import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// `records/resolve` and `records/accept`: share URLs (short GUIDs) turned into share metadata, and accepted.
extension CloudKitAPI {
    /// The sharing resource: `records/resolve` and `records/accept` (the share pages are `SharePages`').
    static let sharingOperations = [
        Operation(.recordsResolve) { try $0.recordsResolve($1) },
        Operation(.recordsAccept) { try $0.recordsAccept($1) },
    ]

    /// The short GUIDs a request names: `[{value, shouldFetchRootRecord, rootRecordDesiredKeys}]` or plain strings.
    func shortGUIDs(_ ctx: CloudKitRequest) throws -> [(value: String, fetchRoot: Bool, desiredKeys: [String]?)] {
        guard let items = try ctx.body.array("shortGUIDs") else { throw StratusError.badRequest("this request needs shortGUIDs: [{value}]") }
        guard items.count <= 200 else { throw StratusError(.limitExceeded, "at most 200 shortGUIDs per request") }
        return try items.map { item in
            if let s = item.string { return (s, false, nil) }
            guard let v = try item.string("value") else { throw StratusError.badRequest("each shortGUID needs a value") }
            return (v, try item.bool("shouldFetchRootRecord") ?? false,
                    try WireDecoding.stringList(item["rootRecordDesiredKeys"], "rootRecordDesiredKeys"))
        }
    }

    func recordsResolve(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        let env = try env(ctx)
        let user = ctx.auth.userRecordName
        let results = try shortGUIDs(ctx).map { g -> Result<(Share, StoredRecord?), StratusError> in
            do { return .success(try env.sharing.resolveShare(g.value, user: user, fetchRoot: g.fetchRoot,
                                                              desiredKeys: g.desiredKeys)) } catch {
                return .failure(StratusError.wrapping(error))
            }
        }
        return shortGUIDResults(results, ctx)
    }

    func recordsAccept(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        let user = try requireUser(ctx.auth, ctx.request, container: ctx.container, environment: ctx.environment)
        let env = try env(ctx)
        let results = try shortGUIDs(ctx).map { g -> Result<(Share, StoredRecord?), StratusError> in
            do { return .success((try env.sharing.acceptShare(g.value, user: user),
                                  nil)) } catch { return .failure(StratusError.wrapping(error)) }
        }
        return shortGUIDResults(results, ctx)
    }

    /// CloudKit's ShortGUID result per item: where the share lives, who owns it, the caller's part in it.
    private func shortGUIDResults(_ results: [Result<(Share, StoredRecord?), StratusError>],
                                  _ ctx: CloudKitRequest) -> HTTPResponse {
        let enc = encoding(ctx)
        let viewer = ctx.auth.userRecordName
        let base = baseURL(ctx.request)
        var owners: [String: ContainerUser] = [:]
        for case .success(let (share, _)) in results {
            if let o = share.owner?.userRecordName, owners[o] == nil, let u = try? store.accounts.user(container: ctx.container, userRecordName: o) { owners[o] = u }
        }
        return jsonList("results", results) { r, w in
            switch r {
            case .failure(let e): enc.error(e, &w)
            case .success(let (share, root)):
                w.beginObject()
                w.field("containerIdentifier", ctx.container.rawValue)
                w.field("environment", ctx.environment.rawValue)
                w.field("databaseScope", "SHARED")
                w.field("shortGUID", share.shortGUID)
                w.field("webpageURL", base + HandedOutPaths.share(share.shortGUID))
                w.key("zoneID"); enc.zoneID(share.zoneID, &w)
                if let name = share.rootRecordName { w.field("rootRecordName", name) }
                if let o = share.owner {
                    w.key("ownerIdentity")
                    w.beginObject()
                    w.field("userRecordName", o.userRecordName)
                    w.key("nameComponents")
                    w.beginObject()
                    w.field("givenName", owners[o.userRecordName]?.firstName ?? "")
                    w.field("familyName", owners[o.userRecordName]?.lastName ?? "")
                    w.endObject()
                    w.endObject()
                }
                if let viewer, let me = share.participant(viewer) {
                    w.field("participantPermission", me.permission.rawValue)
                    w.field("participantStatus", me.acceptanceStatus.rawValue)
                    w.field("participantType", me.type.rawValue)
                }
                w.key("share"); enc.share(share, viewer: viewer, &w)
                if let root { w.key("rootRecord"); enc.record(root, &w) }
                w.endObject()
            }
        }
    }
}
