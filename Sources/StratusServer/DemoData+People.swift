import Foundation
import StratusModel
import StratusStore

/// The demo's people and what they do: three users, private zones holding every field type, a hierarchy share and
/// a zone share each accepted by another user, subscriptions that fire on the writes that follow them (so the
/// Notifications page has deliveries), a webhook whose receiver is down and an automatic index built for a query the
/// demo runs — in both environments.
extension DemoData {
    static let people: [(first: String, last: String, email: String)] = [
        ("Alice", "Martin", "alice@example.com"), ("Bob", "Chen", "bob@example.com"), ("Chloé", "Dubois",
                "chloe@example.com"),
    ]
    /// Nothing listens here (the discard port), so the webhook's deliveries fail and the console shows why.
    static let downReceiver = "http://127.0.0.1:9/stratus-demo-receiver"

    static func installPeople(into store: ServerStore) throws -> [DemoUser] {
        let users = try people.map { p in
            let password = Secrets.hex(Secrets.randomBytes(9))
            let u = try store.accounts.createUser(container: container, email: p.email, password: password,
                                                  firstName: p.first, lastName: p.last,
                                         discoverable: p.first != "Chloé")
            return DemoUser(name: "\(p.first) \(p.last)", email: p.email, password: password,
                            userRecordName: u.userRecordName)
        }
        let lookup: @Sendable (ShareRequest.Lookup) -> ContainerUser? = { l in
            switch l {
            case .emailAddress(let e): try? store.accounts.user(container: container, email: e)
            case .userRecordName(let n): try? store.accounts.user(container: container, userRecordName: n)
            }
        }
        for env in [ContainerEnvironment.development, .production] {
            try fillPrivateData(try store.environment(container, env), users: users, lookup: lookup)
        }
        for env in [ContainerEnvironment.development, .production] {
            let e = try store.environment(container, env)
            try addDownWebhook(e, writer: users[0])
            if e.queryShapes.keepsQueryShapes { try buildShapeIndex(e, reader: users[1]) }
        }
        return users
    }

    static func fillPrivateData(_ env: EnvironmentStore, users: [DemoUser],
                                lookup: @escaping @Sendable (ShareRequest.Lookup) -> ContainerUser?) throws {
        let (alice, bob, chloe) = (users[0], users[1], users[2])
        let trips = ZoneID(zoneName: "Trips"), journal = ZoneID(zoneName: "Journal"), recipes = ZoneID(zoneName: "Recipes")
        let aliceDB = DatabaseID.privateDatabase(of: alice.userRecordName), chloeDB = DatabaseID.privateDatabase(of: chloe.userRecordName)
        for (zone, db) in [(trips, aliceDB), (journal, aliceDB), (recipes, chloeDB)] { try env.zones.createZone(zone,
                in: db) }

        // Subscriptions first, so the writes below notify.
        try addSubscriptions(env, users: users, trips: trips)
        try addTrips(env, alice: alice, trips: trips, journal: journal)
        let asAlice = RequestActor(userRecordName: alice.userRecordName, deviceID: "demo")

        // Alice shares her Lisbon trip (and its stops) with Bob, who accepts.
        var tripShare = RecordOperation(.create, StoredRecord(recordName: "lisbon-share", recordType: Share.recordType,
                                                              zoneID: trips))
        tripShare.share = ShareRequest(forRecord: "trip-lisbon", participants: [.init(lookup: .emailAddress(bob.email),
                permission: .readWrite)])
        let shared = try checked(env.records.modify([tripShare], in: aliceDB, zoneID: trips, actor: asAlice,
                                                    users: lookup))
        if case .savedShare(let s) = shared[0] { _ = try env.sharing.acceptShare(s.shortGUID,
                user: bob.userRecordName) }

        // Chloé keeps recipes in a zone she shares whole with Alice, who accepts.
        let asChloe = RequestActor(userRecordName: chloe.userRecordName, deviceID: "demo")
        _ = try checked(env.records.modify(["Pastéis de nata", "Ramen", "Tarte Tatin",
                                            "Empanadas"].enumerated().map { i, t in
            RecordOperation(.create, StoredRecord(recordName: "recipe-\(i)", recordType: "Note", zoneID: recipes,
                                                  fields: [
                "title": .string(t), "body": .string("Chloé's recipe for \(t)."), "tags": .list(.string,
                        [.string("recipe")]), "priority": .int64(1),
            ]))
        }, in: chloeDB, zoneID: recipes, actor: asChloe))
        var zoneShare = RecordOperation(.create, StoredRecord(recordName: Share.zoneShareName,
                                                              recordType: Share.recordType, zoneID: recipes))
        zoneShare.share = ShareRequest(participants: [.init(lookup: .emailAddress(alice.email), permission: .readOnly)])
        let zoneShared = try checked(env.records.modify([zoneShare], in: chloeDB, zoneID: recipes, actor: asChloe,
                                                        users: lookup))
        if case .savedShare(let s) = zoneShared[0] { _ = try env.sharing.acceptShare(s.shortGUID,
                user: alice.userRecordName) }

        // Bob, through the share, adds a stop to the Lisbon trip; Alice moves a trip: both notify.
        var bobsStop = StoredRecord(recordName: "trip-lisbon-stop-bob", recordType: "Stop",
                                    zoneID: ZoneID(zoneName: "Trips", ownerRecordName: alice.userRecordName),
                                    fields: ["name": .string("Bob's favourite café"), "day": .int64(2)])
        bobsStop.parent = "trip-lisbon"
        _ = try checked(env.records.modify([RecordOperation(.create, bobsStop)],
                                           in: .sharedDatabase(of: bob.userRecordName),
                                   zoneID: ZoneID(zoneName: "Trips",
                                                  ownerRecordName: alice.userRecordName), actor: RequestActor(userRecordName: bob.userRecordName, deviceID: "demo")))
        _ = try checked(env.records.modify([RecordOperation(.create, StoredRecord(recordName: "urgent-0",
                recordType: "Note", fields: [
            "title": .string("Renew the passport"), "priority": .int64(4), "tags": .list(.string, [.string("urgent")]),
        ]))], in: .publicDatabase, actor: asAlice))
    }

    /// Alice's, Bob's and Chloé's subscriptions: a query, a private and a shared database, and a public query.
    static func addSubscriptions(_ env: EnvironmentStore, users: [DemoUser], trips: ZoneID) throws {
        let (alice, bob, chloe) = (users[0], users[1], users[2])
        func save(_ id: String, _ document: String, in scope: DatabaseScope, owner: DemoUser) throws {
            try env.subscriptions.saveSubscription(id, wire: try JSON.parse(Data(document.utf8)), in: scope,
                                                   owner: owner.userRecordName)
        }
        try save("trip-changes", """
            {"subscriptionID":"trip-changes","subscriptionType":"query","query":{"recordType":"Trip","filterBy":[]},\
            "zoneID":{"zoneName":"\(trips.zoneName)"},"zoneWide":false,"firesOn":["create","update"],\
            "notificationInfo":{"alertBody":"A trip changed","shouldSendContentAvailable":true}}
            """, in: .private, owner: alice)
        let everyChange = #"{"shouldSendContentAvailable":true}"#
        try save("private-changes", #"{"subscriptionType":"database","notificationInfo":\#(everyChange)}"#,
                 in: .private, owner: alice)
        try save("shared-with-me", #"{"subscriptionType":"database","notificationInfo":\#(everyChange)}"#,
                 in: .shared, owner: bob)
        try save("urgent-notes", """
            {"subscriptionID":"urgent-notes","subscriptionType":"query","query":{"recordType":"Note","filterBy":[\
            {"comparator":"EQUALS","fieldName":"priority","fieldValue":{"value":4,"type":"INT64"}}]},"firesOn":["create"],\
            "notificationInfo":{"alertBody":"An urgent note"}}
            """, in: .public, owner: chloe)

    }

    /// Alice's trips (every field type, and stops as children, which a hierarchy share carries) and her journal.
    static func addTrips(_ env: EnvironmentStore, alice: DemoUser, trips: ZoneID, journal: ZoneID) throws {
        let aliceDB = DatabaseID.privateDatabase(of: alice.userRecordName)
        let now = WallClock.nowMillis(), day: Int64 = 86_400_000
        let asAlice = RequestActor(userRecordName: alice.userRecordName, deviceID: "demo")
        let destinations: [(String, Double, Double, Int64)] = [("Lisbon", 38.7223, -9.1393, 4), ("Kyoto", 35.0116,
                135.7681, 7), ("Patagonia", -50.9423, -73.4068, 12)]
        var ops: [RecordOperation] = []
        for (i, d) in destinations.enumerated() {
            let cover = try env.assets.uploadAsset(Data(coverSVG(d.0).utf8))
            let name = "trip-\(d.0.lowercased())"
            ops.append(RecordOperation(.create, StoredRecord(recordName: name, recordType: "Trip", zoneID: trips,
                                                             fields: [
                "title": .string("\(d.0) in \(["spring", "autumn", "winter"][i])"), "starts": .timestamp(Timestamp(millisSince1970: now + Int64(30 * (i + 1)) * day)),
                "nights": .int64(d.3), "budget": .double(Double(d.3) * 145.5), "destination": .location(Location(latitude: d.1, longitude: d.2)),
                "cover": .asset(cover), "ticket": .bytes(Data("BOARDING PASS \(d.0.uppercased()) SEAT \(12 + i)A".utf8)),
                "place": .reference(Reference(recordName: "place-\(i)", zoneID: .defaultZone)),
                "packing": .list(.string, ["passport", "charger",
                                           i == 2 ? "crampons" : "sunglasses"].map(FieldValue.string)),
                "nightlyRates": .list(.double, (0..<3).map { .double(120 + Double($0 * 15 + i * 10)) }),
                "waypoints": .list(.location, [Location(latitude: d.1 + 0.05, longitude: d.2), Location(latitude: d.1,
                        longitude: d.2 + 0.05)].map(FieldValue.location)),
            ])))
            for s in 0..<3 {
                var stop = StoredRecord(recordName: "\(name)-stop-\(s)", recordType: "Stop", zoneID: trips, fields: [
                    "name": .string("\(d.0) stop \(s + 1)"), "day": .int64(Int64(s + 1)), "at": .location(Location(latitude: d.1 + Double(s) / 100, longitude: d.2)),
                ])
                stop.parent = name
                ops.append(RecordOperation(.create, stop))
            }
        }
        _ = try checked(env.records.modify(ops, in: aliceDB, zoneID: trips, actor: asAlice))
        _ = try checked(env.records.modify((0..<12).map { i in
            RecordOperation(.create, StoredRecord(recordName: "entry-\(i)", recordType: "Note", zoneID: journal,
                                                  fields: [
                "title": .string("Journal, day \(i + 1)"), "body": .string("What happened on day \(i + 1) of the demo."),
                "priority": .int64(Int64(i % 5)), "tags": .list(.string,
                                                                [.string("journal")]), "due": .timestamp(Timestamp(millisSince1970: now - Int64(i) * day)),
            ]))
        }, in: aliceDB, zoneID: journal, actor: asAlice))

    }

    /// A webhook for public Notes whose receiver is down, and one Note written after it: its delivery fails.
    static func addDownWebhook(_ env: EnvironmentStore, writer: DemoUser) throws {
        _ = try env.webhooks.addWebhook(url: downReceiver, recordTypes: ["Note"])
        _ = try checked(env.records.modify([RecordOperation(.create, StoredRecord(recordName: "webhook-note",
                recordType: "Note", fields: [
            "title": .string("Sent to a webhook that is down"), "priority": .int64(2),
        ]))], in: .publicDatabase, actor: RequestActor(userRecordName: writer.userRecordName, deviceID: "demo")))
    }

    /// A query the demo runs (urgent-ish notes by due date), its shape logged, and the automatic index built for it.
    static func buildShapeIndex(_ env: EnvironmentStore, reader: DemoUser) throws {
        let query = Query(recordType: "Note", filters: [QueryFilter(.field("priority"), .equals, .int64(3))],
                          sorts: [QuerySort(.field("due"), ascending: false)],
                          resultsLimit: 50)
        for _ in 0..<3 { _ = try env.records.query(query, in: .publicDatabase) }
        env.queryShapes.recordQueryShapes(force: true)
        try env.queryShapes.buildAutoIndex(for: QueryShape(query), pinned: true)
    }

    /// A modify's results, or its first failure thrown: the demo is all or nothing.
    static func checked(_ results: [ModifyResult]) throws -> [ModifyResult] {
        if let e = results.lazy.compactMap(\.error).first { throw e }
        return results
    }

    /// A small picture for a trip's cover asset.
    static func coverSVG(_ place: String) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="320" height="160"><rect width="320" height="160" fill="#0a6ed1"/>\
        <text x="20" y="90" font-size="36" fill="#ffffff" font-family="sans-serif">\(place)</text></svg>
        """
    }
}
