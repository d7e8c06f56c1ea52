import Foundation
import StratusHTTP
import StratusModel
import StratusStore

extension CloudKitAPI {
    func subscriptionsList(_ ctx: Context) throws -> HTTPResponse {
        let all = try env(ctx).subscriptions(in: ctx.databaseID)
        return json { w in
            w.beginObject()
            w.key("subscriptions")
            w.beginArray()
            for s in all { w.value((try? JSON.parse(Data(s.document.utf8))) ?? .null) }
            w.endArray()
            w.endObject()
        }
    }

    func subscriptionsLookup(_ ctx: Context) throws -> HTTPResponse {
        guard let items = try ctx.body.array("subscriptions") else { throw StratusError.badRequest("subscriptions/lookup needs subscriptions: [{subscriptionID}]") }
        guard items.count <= 200 else { throw StratusError.badRequest("at most 200 subscriptions per request") }
        let store = try env(ctx)
        var out: [Result<JSON, StratusError>] = []
        for item in items {
            let id = item["subscriptionID"]?.string ?? ""
            if let doc = try store.subscription(id, in: ctx.databaseID), let j = try? JSON.parse(Data(doc.utf8)) { out.append(.success(j)) } else {
                out.append(.failure(StratusError(.notFound, "subscription '\(id.prefix(100))' does not exist")))
            }
        }
        return json { w in
            w.beginObject()
            w.key("subscriptions")
            w.beginArray()
            for (i, r) in out.enumerated() {
                switch r {
                case .success(let j): w.value(j)
                case .failure(let e):
                    w.beginObject()
                    w.field("subscriptionID", items[i]["subscriptionID"]?.string ?? "")
                    w.field("reason", e.reason)
                    w.field("serverErrorCode", e.code.rawValue)
                    w.endObject()
                }
            }
            w.endArray()
            w.endObject()
        }
    }

    /// Query subscriptions carry a query and `firesOn`; zone subscriptions a zoneID. Stored, listed and looked
    /// up as sent (normalized); delivering notifications is a later piece of work.
    func subscriptionsModify(_ ctx: Context) throws -> HTTPResponse {
        guard let ops = try ctx.body.array("operations") else { throw StratusError.badRequest("subscriptions/modify needs operations: [{operationType, subscription}]") }
        guard ops.count <= 200 else { throw StratusError.badRequest("at most 200 operations per request") }
        let store = try env(ctx)
        var results: [(String, Result<JSON?, StratusError>)] = []
        for op in ops {
            let sub = op["subscription"]
            let id = sub?["subscriptionID"]?.string ?? ""
            do {
                let type = op["operationType"]?.string
                switch type {
                case "create", "update":
                    let doc = try Self.normalizedSubscription(sub, id: id)
                    try store.saveSubscription(id, document: doc.serialized, in: ctx.databaseID, replace: type == "update")
                    results.append((id, .success(doc)))
                case "delete":
                    try store.deleteSubscription(id, in: ctx.databaseID)
                    results.append((id, .success(nil)))
                default: throw StratusError.badRequest("subscription operationType must be create, update or delete")
                }
            } catch {
                results.append((id, .failure(StratusError.wrapping(error))))
            }
        }
        return json { w in
            w.beginObject()
            w.key("subscriptions")
            w.beginArray()
            for (id, r) in results {
                switch r {
                case .success(let doc?): w.value(doc)
                case .success(nil): w.beginObject(); w.field("subscriptionID", id); w.field("deleted", true); w.endObject()
                case .failure(let e):
                    w.beginObject()
                    w.field("subscriptionID", id)
                    w.field("reason", e.reason)
                    w.field("serverErrorCode", e.code.rawValue)
                    w.endObject()
                }
            }
            w.endArray()
            w.endObject()
        }
    }

    static func normalizedSubscription(_ j: JSON?, id: String) throws -> JSON {
        guard var o = j?.object else { throw StratusError.badRequest("each operation needs a subscription object") }
        guard !id.isEmpty else { throw StratusError.badRequest("a subscription needs a subscriptionID") }
        switch o["subscriptionType"]?.string {
        case "query":
            guard let q = o["query"] else { throw StratusError.badRequest("a query subscription needs a query") }
            _ = try WireDecoding.query(q, zone: nil, limit: 1, marker: nil, desiredKeys: nil)
            let fires = try WireDecoding.stringList(o["firesOn"], "firesOn") ?? []
            guard !fires.isEmpty, fires.allSatisfy({ ["create", "update", "delete"].contains($0) }) else {
                throw StratusError.badRequest("firesOn must list create, update and/or delete")
            }
            if o["zoneWide"] == nil { o["zoneWide"] = .bool(true) }
            if o["firesOnce"] == nil { o["firesOnce"] = .bool(false) }
        case "zone":
            guard o["zoneID"] != nil else { throw StratusError.badRequest("a zone subscription needs a zoneID") }
            _ = try WireDecoding.zoneID(o["zoneID"])
            o["query"] = nil
            o["firesOn"] = nil
            o["firesOnce"] = nil
        default:
            throw StratusError.badRequest("subscriptionType must be query or zone")
        }
        return .object(o)
    }
}
